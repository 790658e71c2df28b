/* libbuggy.h: interface of libbuggy.so (see libbuggy.c). */
#ifndef LIBBUGGY_H
#define LIBBUGGY_H

const char *config_get(const char *key);
int config_get_int(const char *key);

#endif
