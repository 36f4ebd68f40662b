#ifndef PROV_VERSION_H
#define PROV_VERSION_H
#ifndef PROV_VERSION
#define PROV_VERSION "0.1.0"
#endif
#endif
