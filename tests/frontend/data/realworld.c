/* A "real-world" C file: system headers, macros and the C99/GNU constructs
   people write. It has no loop nests worth parallelizing on purpose in places
   and a few simple ones elsewhere. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>
#include <sys/time.h>
#include <assert.h>
#include <omp.h>

#define N 64
#define M 32
#define SQR(x) ((x) * (x))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define UNUSED(x) (void)(x)
#define likely(x) __builtin_expect(!!(x), 1)

typedef double real;
typedef unsigned long long u64;
typedef struct point { double x, y; } point_t;
typedef union { float f; uint32_t u; } pun_t;
enum color { RED, GREEN = 5, BLUE };
typedef int (*binop_fn)(int, int);

struct node {
    int key;
    struct node *next;
    char name[16];
};

struct __attribute__((aligned(16))) vec4 { float v[4]; };

_Static_assert(sizeof(int) >= 2, "int too small");

static double table[N] __attribute__((aligned(16)));
static const char *names[] = { [RED] = "red", [GREEN] = "green", [BLUE] = "blue" };
static point_t origin = { .x = 0.0, .y = 0.0 };

static inline int add(int a, int b) { return a + b; }
static __inline int sub(int a, int b) { return a - b; }
static inline __attribute__((always_inline)) int mul(int a, int b) { return a * b; }

static int apply(binop_fn f, int a, int b) { return f(a, b); }

static double wall_time(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return tv.tv_sec + tv.tv_usec * 1e-6;
}

static int classify(int c)
{
    switch (c) {
    case RED:
        return 1;
    case GREEN:
    case BLUE:
        return 2;
    default:
        break;
    }
    return 0;
}

static int find(struct node *head, int key)
{
    struct node *p;
    for (p = head; p != NULL; p = p->next)
        if (p->key == key)
            goto found;
    return -1;
found:
    return p->key;
}

static void init(int n, int m, double A[n][m], double *__restrict out, double * restrict in)
{
    int i, j;
    for (i = 0; i < n; i++)
        for (j = 0; j < m; j++)
            A[i][j] = (double)(i * m + j) / (n * m);
    for (i = 0; i < n; i++)
        out[i] = in[i] * 2.0;
}

static void scale(int n, real a, real x[restrict n])
{
    for (int i = 0; i < n; i++)
        x[i] = a * x[i];
}

int main(int argc, char **argv)
{
    static double A[N][M];
    double in[N], out[N];
    _Bool flag = true;
    bool other = false;
    long long big = 1LL << 40;
    unsigned int u = 3u;
    u64 h = 0xcbf29ce484222325ULL;
    int8_t small = (int8_t)-1;
    size_t off = offsetof(struct node, next);
    pun_t pun;
    point_t *pts = (point_t[]){ { 1.0, 2.0 }, { 3.0, 4.0 } };
    struct vec4 v4 = { .v = { 1, 2, 3, 4 } };
    __extension__ long long ext = 5;
    double t0 = wall_time();
    char buf[64];
    struct node n2 = { 2, NULL, "two" }, n1 = { 1, &n2, "one" };
    int k;

    UNUSED(argv);
    assert(argc >= 1);
    for (k = 0; k < N; k++) {
        in[k] = sin((double)k) + sqrt((double)k);
        table[k] = SQR((double)k);
    }
    init(N, M, A, out, in);
    scale(N, 0.5, out);
    pun.f = 1.0f;
    if (likely(flag && !other))
        h ^= (u64)pun.u;
    memset(buf, 0, sizeof buf);
    snprintf(buf, sizeof(buf), "%s", names[GREEN]);
    big += sizeof(struct node) + off + (size_t)small + u + ext;
    printf("%s %d %d %d %d %d\n", buf, apply(add, 1, 2), apply(sub, 5, 3), mul(2, 3),
           classify(BLUE), find(&n1, 2));
    printf("%.3f %.3f %.3f %f\n", A[N - 1][M - 1], out[N - 1], origin.x + pts[1].y + v4.v[3],
           table[MIN(N, M) - 1]);
    printf("%lld %llu %d\n", big, (unsigned long long)h, omp_get_max_threads() > 0);
    (void)t0;
    (void)time(NULL);
    free(malloc(16));
    return EXIT_SUCCESS;
}
