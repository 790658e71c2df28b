// Reference members whose referent cannot be read (i refers to 0x8): GDB
// prints a member reference by its address alone ({i = @0x8, …}) and says
// the referent is unreadable only for a reference at the top.
struct S {
	int &i;
	double &d;
};
struct L {
	int &k;
};

int main()
{
	double dd = 2.5;
	S *y = (S *)__builtin_alloca(16);
	((long *)y)[0] = 8;         // i refers to 0x8
	((long *)y)[1] = (long)&dd; // d refers to dd
	L l = *(L *)y;              // a copy: k refers to 0x8
	return (int)(long)&l.k;     // LINE:use
}
