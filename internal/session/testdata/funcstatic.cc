static int helper(int x) { static int hits = 0; hits += x; return hits; }
int counter() {
  static int calls = 0;
  static const char *last = "none";
  ++calls;
  last = calls % 2 ? "odd" : "even";
  return calls + helper(calls);
}
int main()
{
	int t = counter(); // LINE:use
	t += counter();
	return t == 0;
}
