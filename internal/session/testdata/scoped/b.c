static int counter = 2;
extern int shared;
int geta(void);
int main(void) { return geta() + counter + shared - 50; }
