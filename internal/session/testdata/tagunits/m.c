struct filter { const char *name; void *data; };
void *bz_init(void); void *gz_init(void); int gz_read(struct filter *);
int main(void) { struct filter f = {"gzip", gz_init()}; void *b = bz_init(); return gz_read(&f) + (b != 0); }
