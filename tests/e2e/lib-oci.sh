# OCI image layouts made at test time (sourced by the t-*.sh that need one, after lib.sh).

# mkoci DIR TAG FILE: an OCI image layout of one layer holding FILE as
# /etc/image-name; TAG "" names none; prints the manifest's sha256
mkoci() {
	local dir=$1 tag=$2 h ch mh
	rm -rf "$T/l" && mkdir -p "$T/l/etc" "$dir/blobs/sha256"
	printf '%s\n' "$3" >"$T/l/etc/image-name"
	tar -C "$T/l" --numeric-owner -cf "$T/layer.tar" .
	h=$(sha256sum "$T/layer.tar" | cut -d' ' -f1)
	cp "$T/layer.tar" "$dir/blobs/sha256/$h"
	printf '{"architecture":"amd64","os":"linux","rootfs":{"type":"layers","diff_ids":["sha256:%s"]},"config":{}}' "$h" >"$T/config.json"
	ch=$(sha256sum "$T/config.json" | cut -d' ' -f1)
	cp "$T/config.json" "$dir/blobs/sha256/$ch"
	printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:%s","size":%s},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar","digest":"sha256:%s","size":%s}]}' \
		"$ch" "$(stat -c %s "$T/config.json")" "$h" "$(stat -c %s "$T/layer.tar")" >"$T/manifest.json"
	mh=$(sha256sum "$T/manifest.json" | cut -d' ' -f1)
	cp "$T/manifest.json" "$dir/blobs/sha256/$mh"
	printf '{"imageLayoutVersion":"1.0.0"}' >"$dir/oci-layout"
	if [ -n "$tag" ]; then
		printf '{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:%s","size":%s,"annotations":{"org.opencontainers.image.ref.name":"%s"}}]}' \
			"$mh" "$(stat -c %s "$T/manifest.json")" "$tag" >"$dir/index.json"
	else
		printf '{"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:%s","size":%s}]}' \
			"$mh" "$(stat -c %s "$T/manifest.json")" >"$dir/index.json"
	fi
	echo "$mh"
}
