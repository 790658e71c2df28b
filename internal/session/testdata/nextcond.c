int g;

__attribute__((noinline)) int twice(int x)
{
	return x * 2; // LINE:body
}

int main(void)
{
	int a = 1; // LINE:a
	g = a + 1; // LINE:b
	g = twice(g); // LINE:c
	return g;
}
