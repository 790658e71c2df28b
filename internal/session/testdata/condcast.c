typedef struct Node { int id; struct Node *next; } Node;
typedef int myint;
static int visit(void *p) { return ((Node *)p)->id; }
int main(void)
{
    Node c = {3, 0}, b = {2, &c}, a = {1, &b};
    myint s = 0;
    for (Node *n = &a; n; n = n->next)
        s += visit(n);
    return s == 6 ? 0 : 1;
}
