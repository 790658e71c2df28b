/* like libarchive's archive_read_support_filter_bzip2.c: its own struct private_data */
#include <stdlib.h>
struct private_data { int total_in_lo32; int total_in_hi32; char *out_block; long out_block_size; char valid; };
void *bz_init(void) { struct private_data *p = calloc(1, sizeof *p); p->out_block_size = 111; return p; }
