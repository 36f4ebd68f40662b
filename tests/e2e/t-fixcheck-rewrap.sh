#!/usr/bin/env bash
# fixcheck on a fix whose lines a distribution re-wrapped (issue 34 item 10:
# ImageMagick's coders/jp2.c in Debian): the Debian patch carries the same
# tokens as the upstream fix, over another number of lines (two lines
# joined, a long call split over three, re-indented). Line by line nothing
# matches, yet the fix is there: it is present, "matched after re-wrapping",
# never "absent". A re-wrap that also changes a token (`>` to `>=`) is not
# the fix: never carried.
# Truth, from the fixture itself: the deployed function (dpkg-source -x),
# all blanks removed, equals the fixed upstream function with all blanks
# removed and differs from the one before the fix (for the changed token:
# differs from both); patch --dry-run -l (blanks within lines ignored, not
# line breaks) applies the fix neither forward nor in reverse, which is why
# line matching cannot see it.
# test: slow
. "$(dirname "$0")/lib.sh"
command -v git >/dev/null || skip "git not installed"
command -v python3 >/dev/null || skip "no python3"
command -v dpkg-source >/dev/null || skip "no dpkg-source (apt-get install dpkg-dev)"
command -v patch >/dev/null || skip "no patch"
command -v curl >/dev/null || skip "no curl"
[ -x "$PROVENANCE" ] || fail "no $PROVENANCE"

up=$T/up
. "$TOP/tests/e2e/fixrepo.sh"

git init -q -b main "$up" && mkdir -p "$up/coders"
cat > "$up/coders/jp2.c" <<'EOF'
/* jp2.c: a JPEG-2000 reader */
#include "image.h"

#define MAX_JP2_SIZE 65535

static int ReadJP2Header(struct jp2_header *header, const unsigned char *p)
{
	int version;

	header->width = read_be32(p);
	header->height = read_be32(p + 4);
	header->components = read_be16(p + 8);
	version = p[10];
	if (version != 1)
		return -1;
	header->precision = p[11];
	header->colorspace = p[12];
	return 0;
}

static Image *ReadJP2Image(const ImageInfo *image_info, ExceptionInfo *exception)
{
	Image *image;
	opj_image_t *jp2_image;
	MagickBooleanType status;

	image = AcquireImage(image_info, exception);
	jp2_image = opj_decode(image_info->file);
	if (jp2_image == NULL)
		ThrowReaderException(DelegateError, "UnableToDecodeImageFile");
	image->columns = (size_t) jp2_image->comps[0].w;
	image->rows = (size_t) jp2_image->comps[0].h;
	image->depth = jp2_image->comps[0].prec;
	image->compression = JPEG2000Compression;
	if (jp2_image->numcomps == 4)
		image->alpha_trait = BlendPixelTrait;
	if (jp2_image->color_space == 2)
		SetImageColorspace(image, GRAYColorspace, exception);
	if (image_info->ping != MagickFalse)
		return GetFirstImageInList(image);
	image->resolution.x = jp2_image->comps[0].dx;
	image->resolution.y = jp2_image->comps[0].dy;
	status = SetImageExtent(image, image->columns, image->rows, exception);
	if (status == MagickFalse)
		return DestroyImageList(image);
	return GetFirstImageInList(image);
}

static int WriteJP2Image(const ImageInfo *image_info, Image *image)
{
	int written = 0;

	written = opj_encode(image_info->file, image->columns, image->rows);
	return written;
}
EOF
commit "jp2 1.0" >/dev/null
g tag v1.0
# the fix: a size check (an addition) and pixels reset (a call made longer)
ed "$up/coders/jp2.c" "	image->rows = (size_t) jp2_image->comps[0].h;
" "	image->rows = (size_t) jp2_image->comps[0].h;
	if ((image->columns > MAX_JP2_SIZE) ||
	    (image->rows > MAX_JP2_SIZE))
	  ThrowReaderException(CorruptImageError, \"ImproperImageHeader\");
" "	status = SetImageExtent(image, image->columns, image->rows, exception);" \
	"	status = SetImageExtent(image, image->columns, image->rows, exception) && ResetImagePixels(image, exception);"
fixW=$(commit "jp2: check the image size, reset the pixels")
# another fix: a header check (the distribution changes one of its tokens)
ed "$up/coders/jp2.c" "	header->components = read_be16(p + 8);
" "	header->components = read_be16(p + 8);
	if ((header->width > MAX_JP2_SIZE) ||
	    (header->height > MAX_JP2_SIZE))
	  return -1;
"
fixT=$(commit "jp2: check the header size")
g tag v1.1

# --- the Debian source package: 1.0 plus the two fixes, re-wrapped ------------------------
w=$T/deb
pkg=libjp pool=$w/www/debian/pool/main/libj/libjp
mkdir -p "$pool"
g archive --prefix=libjp-1.0/ v1.0 | gzip -n > "$w/libjp_1.0.orig.tar.gz"
cp "$w/libjp_1.0.orig.tar.gz" "$pool/"
git clone -q "$up" "$w/work" && git -C "$w/work" checkout -q v1.0
wk=$w/work
# two lines joined, one split at another place, re-indented; a call split over three lines
ed "$wk/coders/jp2.c" "	image->rows = (size_t) jp2_image->comps[0].h;
" "	image->rows = (size_t) jp2_image->comps[0].h;
	if ((image->columns > MAX_JP2_SIZE) || (image->rows > MAX_JP2_SIZE))
		ThrowReaderException(CorruptImageError,
			\"ImproperImageHeader\");
" "	status = SetImageExtent(image, image->columns, image->rows, exception);" \
	"	status = SetImageExtent(image, image->columns, image->rows,
		exception) &&
	    ResetImagePixels(image, exception);"
quilt_patch 10-CVE-2099-0001.patch "Description: jp2: check the image size (CVE-2099-0001)
Bug-Debian: https://bugs.example.invalid/1"
# the header check re-wrapped, with >= for >: not the fix
ed "$wk/coders/jp2.c" "	header->components = read_be16(p + 8);
" "	header->components = read_be16(p + 8);
	if ((header->width >= MAX_JP2_SIZE) || (header->height >= MAX_JP2_SIZE))
		return -1;
"
quilt_patch 20-CVE-2099-0002.patch "Description: jp2: check the header size (CVE-2099-0002)"
build_pkg 1
x=$w/x1

# --- ground truth -----------------------------------------------------------------------
# func_text FILE NAME: the function's text, from its definition line to the next one, blanks removed
func_text() {
	python3 - "$1" "$2" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
i = s.index(" *" + sys.argv[2] + "(") if (" *" + sys.argv[2] + "(") in s else s.index(" " + sys.argv[2] + "(")
i = s.rindex("\n", 0, i) + 1
j = s.find("\nstatic ", i)
print(re.sub(r"\s+", "", s[i:j if j >= 0 else len(s)]))
PY
}
g show "$fixW^:coders/jp2.c" > "$T/before.c"; g show "$fixW:coders/jp2.c" > "$T/fixedW.c"
g show "$fixT^:coders/jp2.c" > "$T/beforeT.c"; g show "$fixT:coders/jp2.c" > "$T/fixedT.c"
dep=$(func_text "$x/coders/jp2.c" ReadJP2Image)
[ "$(func_text "$T/fixedW.c" ReadJP2Image)" = "$dep" ] || fail "truth: ReadJP2Image deployed != fixed, blanks aside"
[ "$(func_text "$T/before.c" ReadJP2Image)" != "$dep" ] || fail "truth: ReadJP2Image deployed = before the fix"
dep=$(func_text "$x/coders/jp2.c" ReadJP2Header)
[ "$(func_text "$T/fixedT.c" ReadJP2Header)" != "$dep" ] || fail "truth: ReadJP2Header: the token change is not there"
[ "$(func_text "$T/beforeT.c" ReadJP2Header)" != "$dep" ] || fail "truth: ReadJP2Header deployed = before the fix"
# lines re-wrapped: patch (blanks within lines ignored) applies it neither way, hunk by hunk
for k in 0 1; do
	fwd "$x" "$fixW" $k && fail "truth: hunk $k of the fix applies forward (not re-wrapped)"
	rev "$x" "$fixW" $k && fail "truth: hunk $k of the fix applies in reverse (not re-wrapped)"
done
fwd "$x" "$fixT" 0 && fail "truth: the header fix applies forward"
rev "$x" "$fixT" 0 && fail "truth: the header fix applies in reverse"
echo "ok: truth: the fix is in 1.0-1 blanks and line breaks aside; patch -l sees it neither way"

serve_archive
cache=$T/cache
fc() { "$PROVENANCE" --cache "$cache" -c "sources.debianBaseUrl=http://127.0.0.1:$port/debian" \
	fixcheck "$@" --repo "$up" --at v1.0 --debian-source libjp=1.0-1; }
get() { json_get "$T/last.out" "$1"; }
states() { get '" ".join(e["state"] for e in d[0]["evidence"])'; }

check_exit 0 "a fix re-wrapped" -- fc "$fixW" --format json
check_eq "$(get 'd[0]["how"]') $(get 'd[0]["included"]')" "adapted true" "re-wrapped: how"
check_eq "$(states)" "present-changed-lines present-changed-lines" "re-wrapped: hunk states"
check_eq "$(get '" | ".join(str(e["note"]) for e in d[0]["evidence"])')" \
	"matched after re-wrapping | matched after re-wrapping" "re-wrapped: how each hunk was found"
# the carrier is the quilt patch this test wrote, not the upstream v1.0 (which lacks the fix)
check_eq "$(get '" | ".join(str(e["via"]) for e in d[0]["evidence"])')" \
	"debian/patches/10-CVE-2099-0001.patch | debian/patches/10-CVE-2099-0001.patch" "re-wrapped: the patch carrying each hunk"
check_exit 0 "a fix re-wrapped (text)" -- fc "$fixW"
check_match "$(cat "$T/last.out")" "^YES $fixW is in v1\.0 .*adapted" "re-wrapped: text"

# one token changed as well: never carried
fc "$fixT" --format json > "$T/t.json"; rc=$?
cp "$T/t.json" "$T/last.out"
[ $rc = 0 ] && fail "a token changed: exit 0 (carried)"
check_eq "$(get 'd[0]["included"]')" "$( [ $rc = 1 ] && echo false || echo null)" "a token changed: not included"
case "$(states)" in present*) fail "a token changed: the hunk is $(states)" ;; esac
echo "ok: a token changed: exit $rc, $(states)"
echo "all ok"
