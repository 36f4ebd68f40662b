#include "signature.h"
#include "banned.h"

void prov_signature_begin(struct prov_signature *s, int signo)
{
	struct prov_buf empty = PROV_BUF_INIT;

	s->b = empty;
	s->n = 0;
	prov_buf_printf(&s->b, "%d", signo);
}

int prov_signature_add(struct prov_signature *s, const char *function)
{
	if (s->n >= PROV_SIGNATURE_FUNCTIONS)
		return 0;
	if (function) {
		prov_buf_printf(&s->b, "|%s", function);
		s->n++;
	}
	return s->n < PROV_SIGNATURE_FUNCTIONS;
}

char *prov_signature_finish(struct prov_signature *s)
{
	return prov_buf_detach(&s->b);
}

char *prov_crash_signature(const struct prov_crash *c)
{
	const struct prov_thread *t = prov_crash_crashed_thread(c);
	struct prov_signature s;
	size_t i;

	prov_signature_begin(&s, c->has_signal ? c->signal.number : 0);
	for (i = 0; t && i < t->nframes; i++)
		if (!prov_signature_add(&s, t->frames[i].function))
			break;
	return prov_signature_finish(&s);
}
