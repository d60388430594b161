/* Baseline of benches/run_overhead.sh: N bare fork/exec/wait cycles of a program, the
 * least any runner must pay per execution. Prints the total time in nanoseconds. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s N PROGRAM\n", argv[0]);
        return 2;
    }
    int n = atoi(argv[1]);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int i = 0; i < n; i++) {
        pid_t p = fork();
        if (p == 0) {
            execl(argv[2], argv[2], (char *)0);
            _exit(127);
        }
        int st;
        waitpid(p, &st, 0);
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("%.0f\n", (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec));
    return 0;
}
