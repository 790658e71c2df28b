static int counter = 2;
int geta(void);
int main(void) { return geta() + counter; }
