int nodebug_counter = 42;
long nodebug_big = 1234567890123L;
char nodebug_name[8] = "hello";
int bump(int n) { return nodebug_counter += n; }
