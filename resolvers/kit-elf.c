/* The resolvers' kit: the GNU build ID of an ELF file under the sysroot. */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "resolve.h"
#include "error.h"
#include "util.h"
#include "banned.h"

int prov_root_build_id(char **out, const char *root, const char *path)
{
	static const char hex[] = "0123456789abcdef";
	Elf *elf = NULL;
	Elf_Scn *scn = NULL;
	struct stat st;
	int fd, error = PROV_ENOTFOUND, nsec = 0;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return prov_error_set(PROV_ENOTFOUND, "libelf: %s", elf_errmsg(-1));
	fd = prov_root_open(root, path, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return PROV_ENOTFOUND;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		goto cleanup;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		goto cleanup;
	while (error == PROV_ENOTFOUND && (scn = elf_nextscn(elf, scn)) && nsec++ < 65536) {
		GElf_Shdr sh;
		Elf_Data *data;
		size_t off = 0, next, name_off, desc_off;
		GElf_Nhdr nh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || !(data = elf_getdata(scn, NULL)))
			continue;
		while (off < data->d_size &&
		       (next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((const char *)data->d_buf + name_off, "GNU", 4) &&
			    nh.n_descsz > 0 && nh.n_descsz <= 64 && desc_off + nh.n_descsz <= data->d_size) {
				const unsigned char *d = (const unsigned char *)data->d_buf + desc_off;
				char *h = prov_xcalloc(2 * nh.n_descsz + 1, 1);
				size_t i;

				for (i = 0; i < nh.n_descsz; i++) {
					h[2 * i] = hex[d[i] >> 4];
					h[2 * i + 1] = hex[d[i] & 15];
				}
				*out = h;
				error = 0;
				break;
			}
			if (next <= off)
				break;
			off = next;
		}
	}
cleanup:
	if (elf)
		elf_end(elf);
	close(fd);
	return error;
}
