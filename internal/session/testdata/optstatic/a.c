static int counter = 100;
static int limit = 5;
int b_bump(int v);
__attribute__((noinline)) int a_work(int v)
{
    return v + counter + limit;
}
int main(void)
{
    int r = b_bump(4) + a_work(1);
    return r - 114;
}
