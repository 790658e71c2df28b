/* like archive_read_support_filter_gzip.c: another struct private_data */
#include <stdlib.h>
struct private_data { long next_in; unsigned avail_in; char *out_block; long out_block_size; unsigned crc; };
struct filter { const char *name; void *data; };
int gz_read(struct filter *self)
{
  struct private_data *state = self->data;
  return (int)state->out_block_size;
}
void *gz_init(void) { struct private_data *p = calloc(1, sizeof *p); p->out_block_size = 65536; p->crc = 7; return p; }
