/* TestFinishFromAssembler: main calls asmret.S's myasm. */
int myasm(int);
int main(void)
{
	int r = myasm(3);
	return r - 8;
}
