/* A watchpoint on a local of a recursive function: the deeper calls
   return to the same call site (the scope breakpoint's address) in
   frames that are not the watched one. And one on a local of main, whose
   frame returns to the C library, past the end of the backtrace. */
int depth_sum(int n)
{
	int local = n;
	if (n > 0)
		local += depth_sum(n - 1);
	local *= 2;
	return local;
}

int main(void)
{
	int r = depth_sum(3);
	r += depth_sum(1); // LINE:main
	r -= 1;
	return r == 1;
}
