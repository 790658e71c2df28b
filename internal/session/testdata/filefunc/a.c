static int helper(int a) { return a + 1; }
static int counter = 100;
int b_call(int);
int (*b_fn(void))(int);
int main(void)
{
    int r = helper(1) + b_call(2) + b_fn()(3);
    return r + counter - 100 - 13;
}
