#include <stdio.h>

#include "cmd.h"
#include "error.h"
#include "banned.h"

int cmd_fixcheck(int argc, char **argv, struct prov_global *g)
{
	(void)argc;
	(void)argv;
	(void)g;
	fprintf(stderr, "provenance fixcheck: not built yet\n");
	return 1;
}
