/* Reads and writes of g, for TestReadWatchpointMatchesGDB: a read
 * watchpoint (an access one on x86, which traps no reads alone) stops at
 * the reads only. */
volatile int g;
int sink;
int main(void)
{
	g = 1;
	g = 2;
	sink = g;
	g = 3;
	g = 3;
	sink += g;
	return sink;
}
