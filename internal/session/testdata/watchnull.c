/* A watchpoint set while the expression cannot be read (r is NULL), for
   TestWatchUnreadableMatchesGDB: GDB watches r, and r->naddr once r
   points somewhere. */
struct result { int calls; int naddr; };

void cb(void *arg)
{
  struct result *r = 0;
  r = (struct result *)arg; // LINE:set
  r->calls++;
  r->naddr = 5;
}

int main(void)
{
  struct result x = {0, 0};
  cb(&x);
  return x.naddr - 5;
}
