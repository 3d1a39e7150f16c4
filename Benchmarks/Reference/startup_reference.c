/* The floor for readerctl's start-up: a C program that prints a line. */
#include <stdio.h>

int main(void) {
    puts("ready");
    return 0;
}
