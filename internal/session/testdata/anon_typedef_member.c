/* rrmcp's ptype expands a member whose type is a typedef of an anonymous struct/union. */
typedef struct { int version; int header_size; } block_t;      /* anonymous struct */
typedef union { long align; char size[8]; } mutex_t;            /* anonymous union */
typedef struct named_s { int a; } named_t;                      /* named struct */
struct worker {
  block_t opts;        /* GDB: "block_t opts;"  */
  block_t arr[2];      /* array of the same typedef */
  block_t *ptr;        /* pointer to the same typedef */
  mutex_t mutex;
  named_t named;
};
int main(void) {
  struct worker w = {0};
  w.opts.version = 1;
  return w.opts.version;   /* line 15 */
}
