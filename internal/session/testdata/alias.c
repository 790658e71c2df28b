/* Variables defined as aliases, for TestAliasVariablesMatchGDB: gcc
 * describes each as an external variable without a location, which GDB
 * finds at its ELF symbol (LOC_UNRESOLVED). */
int real_counter = 5;
extern int alias_counter __attribute__((alias("real_counter")));
static int hidden_real = 7;
extern int alias_hidden __attribute__((alias("hidden_real")));
int main(void)
{
	real_counter++;
	return alias_counter + alias_hidden - 13; // LINE:use
}
