/* main calls functions without call frame information (nocfi.S). */
int framedasm(int);
int leafasm(int);

int main(void)
{
	int r = framedasm(3);
	r += leafasm(r);
	return r != 29;
}
