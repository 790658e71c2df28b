#include <list>
// A std::list whose node chain leads to unreadable memory after some
// nodes: each node's _M_next is its first word, the list's own header
// node's the list's first word.
int main()
{
	std::list<int> l{1, 2, 3};
	std::list<int> l1{7};
	void **second = (void **)(*reinterpret_cast<void ***>(&l))[0]; // the node of 2
	void *keep = second[0];
	second[0] = (void *)0x8;
	void **only = *reinterpret_cast<void ***>(&l1);
	void *keep1 = only[0];
	only[0] = (void *)0x10;
	int s = 0; // LINE:use
	second[0] = keep;
	only[0] = keep1;
	return s;
}
