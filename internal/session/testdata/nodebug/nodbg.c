int nodebug_counter = 42;
long nodebug_big = 1234567890123L;
char nodebug_name[8] = "hello";
int bump(int n) { return nodebug_counter += n; }
long nodebug_declared = 77;
int (*nodebug_fp)(int) = bump;
/* aliases of bump: GDB names its address by the last by strcmp of the
 * three, whatever their binding (bump_alias) */
extern int bump_alias(int) __attribute__((alias("bump")));
extern int aa_weak_bump(int) __attribute__((weak, alias("bump")));
