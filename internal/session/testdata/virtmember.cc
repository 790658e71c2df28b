struct Base {
	virtual ~Base() {}
	virtual double weight(int k) const { return k * 1.5; }
	int plain(int a) { return a + v; }
	static int stat(int a) { return a * 2; }
	int v = 1;
};

struct Derived : Base {
	double weight(int k) const override { return k * 2.5; }
};

int main()
{
	Derived d;
	Base *b = &d;
	return (int)b->weight(2) + b->plain(1) + Base::stat(3); // LINE:use
}
