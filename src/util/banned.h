#ifndef PROV_BANNED_H
#define PROV_BANNED_H

/*
 * Functions that invite overflows or hidden state (git's banned.h). Every
 * project source includes it last (tests/e2e/t-style-banned.sh checks), so a
 * use fails to compile with the reason in the name.
 */
#define BANNED(func) sorry_##func##_is_a_banned_function

#undef strcpy
#define strcpy(x, y) BANNED(strcpy)
#undef strcat
#define strcat(x, y) BANNED(strcat)
#undef strncpy
#define strncpy(x, y, n) BANNED(strncpy)
#undef sprintf
#define sprintf(...) BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) BANNED(vsprintf)
#undef strtok
#define strtok(x, y) BANNED(strtok)
#undef atoi
#define atoi(x) BANNED(atoi)
#undef sscanf
#define sscanf(...) BANNED(sscanf)
#undef gmtime
#define gmtime(x) BANNED(gmtime)
#undef localtime
#define localtime(x) BANNED(localtime)
#undef gets
#define gets(x) BANNED(gets)

#endif
