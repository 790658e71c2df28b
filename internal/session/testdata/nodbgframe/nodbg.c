int crash_here(int *p, int v)
{
    int s = v * 3;
    p[v] = s;
    return s;
}
