#include <stdio.h>

#include "cmd.h"
#include "error.h"
#include "banned.h"

int cmd_resolve(int argc, char **argv, struct prov_global *g)
{
	(void)argc;
	(void)argv;
	(void)g;
	fprintf(stderr, "provenance resolve: not built yet\n");
	return 1;
}
