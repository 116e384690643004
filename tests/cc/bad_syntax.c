// Does not compile: npusim cc passes clang's message through and exits 2.
int main(void) { return undeclared_name; }
