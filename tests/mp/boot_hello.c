/* A multi-process test of ucc_boot.h, run by ucc_run, by hand with
 * torchrun's variables, or by mpirun: boots from the environment, runs OOB
 * allgathers of 0 bytes to 1 MiB (one pair of them outstanding at once),
 * checks every byte, passes a barrier, prints a line per stream and a last
 * line without a newline, and finalizes.
 *
 *   boot_hello [--kill-rank R] [--exit-rank R --exit-code C] [--rounds K]
 *              [--timeout SEC]
 *
 * --kill-rank: rank R sends itself SIGKILL after init; --exit-rank: rank R
 * exits with code C after init (the others then wait in an allgather until
 * the launcher stops them). --rounds repeats init..finalize K times (a store
 * serves several boots in turn). --timeout is the boot timeout (default 60
 * s). Exit code 0 when everything checks out. */
#define _POSIX_C_SOURCE 200809L

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucc/boot/ucc_boot.h>

static unsigned char pattern(uint32_t rank, size_t i, size_t size) {
    return (unsigned char)(rank * 131u + i * 7u + size);
}

/* Waits for an OOB request; the request's own timeout bounds the loop. */
static ucc_status_t oob_wait(ucc_oob_coll_t *oob, void *req) {
    struct timespec nap = {0, 20000};
    ucc_status_t st;
    while ((st = oob->req_test(req)) == UCC_INPROGRESS) {
        nanosleep(&nap, NULL);
    }
    return st;
}

static int check(const unsigned char *rbuf, uint32_t n, size_t size, const char *what,
                 uint32_t me) {
    uint32_t r;
    size_t i;
    for (r = 0; r < n; ++r) {
        for (i = 0; i < size; ++i) {
            if (rbuf[r * size + i] != pattern(r, i, size)) {
                fprintf(stderr, "rank %u: %s of %zu bytes: byte %zu from rank %u is wrong\n", me,
                        what, size, i, r);
                return 1;
            }
        }
    }
    return 0;
}

static int one_boot(double timeout, int kill_rank, int exit_rank, int exit_code) {
    static const size_t sizes[] = {0, 1, 7, 4096, 1 << 20};
    ucc_boot_params_t params;
    ucc_boot_h boot;
    ucc_oob_coll_t oob;
    uint32_t me, n;
    size_t k;
    int errors = 0;
    ucc_status_t st;

    params.mask = UCC_BOOT_PARAM_FIELD_TIMEOUT;
    params.timeout = timeout;
    st = ucc_boot_init(&params, &boot);
    if (st != UCC_OK) {
        fprintf(stderr, "ucc_boot_init: %s\n", ucc_status_string(st));
        return 1;
    }
    me = ucc_boot_rank(boot);
    n = ucc_boot_size(boot);
    if ((int)me == kill_rank) {
        raise(SIGKILL);
    }
    if ((int)me == exit_rank) {
        exit(exit_code);
    }
    if (ucc_boot_oob(boot, &oob) != UCC_OK || oob.n_oob_eps != n || oob.oob_ep != me) {
        fprintf(stderr, "rank %u: ucc_boot_oob gave a wrong OOB\n", me);
        return 1;
    }
    for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]) && errors == 0; ++k) {
        size_t size = sizes[k];
        unsigned char *sbuf = malloc(size + 1);
        unsigned char *rbuf = malloc(size * n + 1);
        unsigned char *rbuf2 = malloc(size * n + 1);
        void *req = NULL;
        void *req2 = NULL;
        size_t i;
        for (i = 0; i < size; ++i) {
            sbuf[i] = pattern(me, i, size);
        }
        /* Two rounds in flight: the second posted before the first is freed. */
        st = oob.allgather(sbuf, rbuf, size, oob.coll_info, &req);
        if (st == UCC_OK) {
            st = oob.allgather(sbuf, rbuf2, size, oob.coll_info, &req2);
        }
        if (st == UCC_OK) {
            st = oob_wait(&oob, req2);
        }
        if (st == UCC_OK) {
            st = oob_wait(&oob, req);
        }
        if (st != UCC_OK) {
            fprintf(stderr, "rank %u: allgather of %zu bytes: %s\n", me, size,
                    ucc_status_string(st));
            errors++;
        } else {
            errors += check(rbuf, n, size, "allgather", me);
            errors += check(rbuf2, n, size, "second allgather", me);
        }
        if (req != NULL) {
            oob.req_free(req);
        }
        if (req2 != NULL) {
            oob.req_free(req2);
        }
        free(sbuf);
        free(rbuf);
        free(rbuf2);
    }
    st = ucc_boot_barrier(boot);
    if (st != UCC_OK) {
        fprintf(stderr, "rank %u: barrier: %s\n", me, ucc_status_string(st));
        errors++;
    }
    if (errors == 0) {
        printf("rank %u of %u: ok (local %u of %u)\n", me, n, ucc_boot_local_rank(boot),
               ucc_boot_local_size(boot));
        fprintf(stderr, "rank %u: a line on stderr\n", me);
    }
    st = ucc_boot_finalize(boot);
    if (st != UCC_OK) {
        fprintf(stderr, "rank %u: finalize: %s\n", me, ucc_status_string(st));
        errors++;
    }
    return errors;
}

int main(int argc, char **argv) {
    int kill_rank = -1, exit_rank = -1, exit_code = 0, rounds = 1, i, errors = 0;
    double timeout = 60;
    for (i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--kill-rank") == 0) {
            kill_rank = atoi(argv[i + 1]);
        } else if (strcmp(argv[i], "--exit-rank") == 0) {
            exit_rank = atoi(argv[i + 1]);
        } else if (strcmp(argv[i], "--exit-code") == 0) {
            exit_code = atoi(argv[i + 1]);
        } else if (strcmp(argv[i], "--timeout") == 0) {
            timeout = atof(argv[i + 1]);
        } else if (strcmp(argv[i], "--rounds") == 0) {
            rounds = atoi(argv[i + 1]);
        } else {
            fprintf(stderr, "boot_hello: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (!ucc_boot_launched()) {
        printf("not launched: running as a single rank\n");
    }
    for (i = 0; i < rounds && errors == 0; ++i) {
        errors += one_boot(timeout, kill_rank, exit_rank, exit_code);
    }
    fflush(stderr);
    /* The last line has no newline: the launcher completes it. */
    printf("bye");
    return errors == 0 ? 0 : 1;
}
