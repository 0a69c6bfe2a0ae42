/* Open MPI 4.1's coll/ucc, call for call, over libucc.so.
 *
 * Debian's Open MPI is built without coll/ucc, so this program plays its part:
 * it makes the UCC calls that ompi/mca/coll/ucc (v4.1.4: coll_ucc_module.c,
 * coll_ucc_component.c, coll_ucc_<coll>.c, coll_ucc_common.h,
 * coll_ucc_dtypes.h) makes, with the same params, masks and field values, in
 * the same order, and checks every result against Open MPI's own collectives
 * on copies of the same inputs.
 *
 *   mpirun -np 4 ompi_coll_ucc [--thread-multiple] [--leave-comm]
 *
 * The sequence it reproduces:
 *  - at the first communicator of two or more ranks (MPI_COMM_WORLD, inside
 *    MPI_Init): ucc_lib_config_read("OMPI", NULL) (so OMPI_UCC_* variables),
 *    ucc_lib_config_modify("CLS", "basic"), ucc_init with only THREAD_MODE
 *    (SINGLE, or MULTIPLE under MPI_THREAD_MULTIPLE), ucc_lib_get_attr
 *    (THREAD_MODE | COLL_TYPES: a type missing there is never offloaded);
 *    ucc_context_config_read(lib, NULL), modify(NULL, "ESTIMATED_NUM_EPS",
 *    world size) and (NULL, "ESTIMATED_NUM_PPN", local size), and
 *    ucc_context_create with only the OOB: a ring allgather over
 *    MPI_COMM_WORLD (isend/irecv, five polls per req_test, no communication
 *    at post), n_oob_eps = world size, oob_ep = world rank. The parameter
 *    structs are not zeroed there (stack garbage): here they are filled with
 *    0xa5 first.
 *  - for every communicator of two or more ranks: ucc_team_create_post with
 *    EP_MAP | EP | EP_RANGE | ID and no OOB: ep_map FULL for MPI_COMM_WORLD,
 *    CB (comm rank -> world rank) for any other, ep = comm rank, CONTIG, id =
 *    the communicator's context id (world 0; new ones the lowest id free on
 *    every member of the parent, so both halves of a split share one, and a
 *    freed one is reused); then ucc_team_create_test + progress until done.
 *    Communicators of one rank get no team.
 *  - per collective (barrier, bcast, allreduce, reduce, alltoall, alltoallv,
 *    allgather, allgatherv; their i-variants too): a zeroed ucc_coll_args_t
 *    (C designated initializer) with mask 0, the type, src (and dst) info
 *    with mem_type UNKNOWN, op, root; in place: FLAGS + IN_PLACE with
 *    src.buffer = MPI_IN_PLACE; v-arrays are the caller's int arrays (32-bit:
 *    no COUNT_64BIT / DISPLACEMENTS_64BIT). Blocking: init, post, loop test +
 *    progress, finalize. Non-blocking: CB in the mask, init, post; the
 *    callback finalizes the request (from inside progress). Datatypes and ops
 *    coll/ucc does not map, a non-contiguous layout, and what MPI itself
 *    returns early for (count 0 and the like) never reach UCC.
 *  - MPI_Comm_free: ucc_team_destroy once, its status ignored. MPI_Finalize:
 *    a fence that progresses the context, then ucc_team_destroy (world),
 *    ucc_context_destroy, ucc_finalize, statuses ignored.
 *
 * Where coll/ucc would silently fall back to Open MPI's own collective because
 * the library refused something (init, post or test failed), this program
 * falls back too, so the result stays right, but reports the refusal as a
 * failure; the one known refusal, send and receive element sizes that differ
 * (rule V9 of model/VALIDITY.md), is counted apart. In every other case
 * ("poison") the fields coll/ucc's initialisers leave zero hold 0xa5, so the
 * library is seen to read nothing that the mask, type and flags do not
 * select. --leave-comm keeps one communicator alive at MPI_Finalize (many
 * programs do), so the context is destroyed with its team still on it.
 *
 * Output: one line per failure; rank 0 ends with "ompi_coll_ucc: N cases on
 * P processes, F failures (calls: U through UCC, B fell back, V of them
 * refused by rule V9 ...)". Exit 0 when every rank saw no failure. */
#define _POSIX_C_SOURCE 200809L

#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucc/api/ucc.h>

#define OOB_TAG 4011 /* stands for MCA_COLL_BASE_TAG_UCC */
#define GUARD 64
#define GUARD_BYTE 0xee
#define POISON_BYTE 0xa5
#define MAX_CID 4096

/* ------------------------------------------------------------------ */
/* State: the component (one library, one context) and the test's tally. */

static struct {
    ucc_lib_h lib;
    ucc_lib_attr_t lib_attr;
    ucc_context_h ctx;
    int initialized; /* libucc_initialized */
    int enable;      /* ucc_enable */
} cm = {NULL, {0}, NULL, 0, 1};

static struct {
    int rank;
    long cases, failures, through_ucc, fell_back, refused_v9;
    int poison;      /* this case fills the fields coll/ucc leaves zero with 0xa5 */
    int mixed_sizes; /* this case's send and receive element sizes differ */
    char what[256];
} st;

static MPI_Comm world_comm; /* coll_info of the context's OOB */
static unsigned char cid_used[MAX_CID];

static void fail(const char *fmt, ...) {
    va_list ap;
    char msg[512];
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    st.failures++;
    fprintf(stderr, "FAIL rank %d: %s%s%s\n", st.rank, st.what, st.what[0] ? ": " : "", msg);
}

/* opal_progress(): the registered mca_coll_ucc_progress, then Open MPI's own. */
static void opal_progress(void) {
    int flag;
    ucc_context_progress(cm.ctx);
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
}

/* ------------------------------------------------------------------ */
/* The context's OOB: coll/ucc's ring allgather over MPI_COMM_WORLD.
 * allgather() only records the request; req_test() does the work: it copies
 * its own block, then in step k sends block (rank - k) to the right and
 * receives block (rank - k - 1) from the left, polling the pair five times
 * before it answers UCC_INPROGRESS. */

typedef struct {
    void *sbuf;
    void *rbuf;
    MPI_Comm comm;
    size_t msglen;
    int iter;
    MPI_Request reqs[2];
} oob_req_t;

static int oob_pair_done(oob_req_t *r) {
    int done = 0;
    int probe = 0;
    do {
        MPI_Testall(2, r->reqs, &done, MPI_STATUSES_IGNORE);
        probe++;
    } while (!done && probe < 5);
    return done;
}

static ucc_status_t oob_allgather_test(void *req) {
    oob_req_t *r = (oob_req_t *)req;
    char *rbuf = (char *)r->rbuf;
    size_t len = r->msglen;
    int rank, size, to, from;
    MPI_Comm_rank(r->comm, &rank);
    MPI_Comm_size(r->comm, &size);
    if (r->iter == 0) {
        memcpy(rbuf + (size_t)rank * len, r->sbuf, len);
    }
    to = (rank + 1) % size;
    from = (rank - 1 + size) % size;
    for (; r->iter < size - 1; r->iter++) {
        int recv_block, send_block;
        if (r->iter > 0 && !oob_pair_done(r)) {
            return UCC_INPROGRESS;
        }
        recv_block = (rank - r->iter - 1 + size) % size;
        send_block = (rank - r->iter + size) % size;
        MPI_Isend(rbuf + (size_t)send_block * len, (int)len, MPI_BYTE, to, OOB_TAG, r->comm,
                  &r->reqs[0]);
        MPI_Irecv(rbuf + (size_t)recv_block * len, (int)len, MPI_BYTE, from, OOB_TAG, r->comm,
                  &r->reqs[1]);
    }
    return oob_pair_done(r) ? UCC_OK : UCC_INPROGRESS;
}

static ucc_status_t oob_allgather_free(void *req) {
    free(req);
    return UCC_OK;
}

static ucc_status_t oob_allgather(void *sbuf, void *rbuf, size_t msglen, void *coll_info,
                                  void **req) {
    oob_req_t *r = (oob_req_t *)malloc(sizeof(*r));
    if (r == NULL) {
        return UCC_ERR_NO_MEMORY;
    }
    r->sbuf = sbuf;
    r->rbuf = rbuf;
    r->msglen = msglen;
    r->comm = *(MPI_Comm *)coll_info;
    r->iter = 0;
    *req = r;
    return UCC_OK;
}

/* ------------------------------------------------------------------ */
/* mca_coll_ucc_init_ctx */

static int init_ctx(int thread_multiple) {
    ucc_lib_config_h lib_config;
    ucc_context_config_h ctx_config;
    ucc_lib_params_t lib_params;
    ucc_context_params_t ctx_params;
    ucc_thread_mode_t tm_requested = thread_multiple ? UCC_THREAD_MULTIPLE : UCC_THREAD_SINGLE;
    char str_buf[256];
    int world_size, world_rank;
    const char *local_size = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
    ucc_status_t s;

    /* Not zeroed in coll/ucc: whatever the stack held. */
    memset(&lib_params, POISON_BYTE, sizeof(lib_params));
    memset(&ctx_params, POISON_BYTE, sizeof(ctx_params));
    memset(&cm.lib_attr, POISON_BYTE, sizeof(cm.lib_attr));

    lib_params.mask = UCC_LIB_PARAM_FIELD_THREAD_MODE;
    lib_params.thread_mode = tm_requested;
    if ((s = ucc_lib_config_read("OMPI", NULL, &lib_config)) != UCC_OK) {
        fail("ucc_lib_config_read(\"OMPI\", NULL) returned %s", ucc_status_string(s));
        return -1;
    }
    if ((s = ucc_lib_config_modify(lib_config, "CLS", "basic")) != UCC_OK) {
        ucc_lib_config_release(lib_config);
        fail("ucc_lib_config_modify(CLS, basic) returned %s", ucc_status_string(s));
        return -1;
    }
    if ((s = ucc_init(&lib_params, lib_config, &cm.lib)) != UCC_OK) {
        ucc_lib_config_release(lib_config);
        fail("ucc_init returned %s", ucc_status_string(s));
        return -1;
    }
    ucc_lib_config_release(lib_config);

    cm.lib_attr.mask = UCC_LIB_ATTR_FIELD_THREAD_MODE | UCC_LIB_ATTR_FIELD_COLL_TYPES;
    if ((s = ucc_lib_get_attr(cm.lib, &cm.lib_attr)) != UCC_OK) {
        fail("ucc_lib_get_attr returned %s", ucc_status_string(s));
        goto cleanup_lib;
    }
    if (cm.lib_attr.thread_mode < tm_requested) {
        fail("the library gives thread mode %d, coll/ucc asked for %d",
             (int)cm.lib_attr.thread_mode, (int)tm_requested);
        goto cleanup_lib;
    }

    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    ctx_params.mask = UCC_CONTEXT_PARAM_FIELD_OOB;
    ctx_params.oob.allgather = oob_allgather;
    ctx_params.oob.req_test = oob_allgather_test;
    ctx_params.oob.req_free = oob_allgather_free;
    ctx_params.oob.coll_info = &world_comm;
    ctx_params.oob.n_oob_eps = (uint32_t)world_size;
    ctx_params.oob.oob_ep = (uint32_t)world_rank;
    if ((s = ucc_context_config_read(cm.lib, NULL, &ctx_config)) != UCC_OK) {
        fail("ucc_context_config_read returned %s", ucc_status_string(s));
        goto cleanup_lib;
    }
    sprintf(str_buf, "%u", (unsigned)world_size);
    if ((s = ucc_context_config_modify(ctx_config, NULL, "ESTIMATED_NUM_EPS", str_buf)) != UCC_OK) {
        fail("ucc_context_config_modify(ESTIMATED_NUM_EPS) returned %s", ucc_status_string(s));
        goto cleanup_lib;
    }
    sprintf(str_buf, "%u", local_size != NULL ? (unsigned)atoi(local_size) : 1u);
    if ((s = ucc_context_config_modify(ctx_config, NULL, "ESTIMATED_NUM_PPN", str_buf)) != UCC_OK) {
        fail("ucc_context_config_modify(ESTIMATED_NUM_PPN) returned %s", ucc_status_string(s));
        goto cleanup_lib;
    }
    if ((s = ucc_context_create(cm.lib, &ctx_params, ctx_config, &cm.ctx)) != UCC_OK) {
        fail("ucc_context_create returned %s", ucc_status_string(s));
        ucc_context_config_release(ctx_config);
        goto cleanup_lib;
    }
    ucc_context_config_release(ctx_config);
    cm.initialized = 1;
    return 0;

cleanup_lib:
    ucc_finalize(cm.lib);
    cm.enable = 0;
    cm.initialized = 0;
    return -1;
}

/* ------------------------------------------------------------------ */
/* Communicators: context ids as Open MPI 4.1 allocates them, and the module
 * (team) coll/ucc attaches to each. */

typedef struct {
    MPI_Comm comm;
    const char *name;
    int rank, size;
    int is_world;
    uint32_t cid;
    int *world_of;   /* comm rank -> world rank: what rank_map_cb returns */
    ucc_team_h team; /* NULL: coll/ucc does not serve this communicator */
} module_t;

/* The lowest id free on every member of the parent (ompi_comm_nextcid):
 * propose the lowest local free id, take the maximum, accept it when it is
 * free everywhere, else retry above it. */
static uint32_t next_cid(MPI_Comm parent) {
    int start = 3; /* 0 world, 1 self, 2 null */
    for (;;) {
        int mine = start;
        int cand, ok, all_ok;
        while (mine < MAX_CID && cid_used[mine]) {
            mine++;
        }
        MPI_Allreduce(&mine, &cand, 1, MPI_INT, MPI_MAX, parent);
        ok = cand < MAX_CID && !cid_used[cand];
        MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, parent);
        if (all_ok) {
            cid_used[cand] = 1;
            return (uint32_t)cand;
        }
        start = cand + 1;
    }
}

static uint64_t rank_map_cb(uint64_t ep, void *cb_ctx) {
    const module_t *m = (const module_t *)cb_ctx;
    return (uint64_t)m->world_of[ep];
}

/* mca_coll_ucc_module_enable */
static void module_enable(module_t *m) {
    ucc_team_params_t team_params;
    ucc_status_t s;
    /* A designated initializer in coll/ucc: everything else zero. */
    memset(&team_params, 0, sizeof(team_params));
    team_params.mask = UCC_TEAM_PARAM_FIELD_EP_MAP | UCC_TEAM_PARAM_FIELD_EP |
                       UCC_TEAM_PARAM_FIELD_EP_RANGE | UCC_TEAM_PARAM_FIELD_ID;
    team_params.ep_map.type = m->is_world ? UCC_EP_MAP_FULL : UCC_EP_MAP_CB;
    team_params.ep_map.ep_num = (uint64_t)m->size;
    team_params.ep_map.cb.cb = rank_map_cb;
    team_params.ep_map.cb.cb_ctx = m;
    team_params.ep = (uint64_t)m->rank;
    team_params.ep_range = UCC_COLLECTIVE_EP_RANGE_CONTIG;
    team_params.id = m->cid;

    if ((s = ucc_team_create_post(&cm.ctx, 1, &team_params, &m->team)) != UCC_OK) {
        fail("ucc_team_create_post on %s (cid %u) returned %s", m->name, m->cid,
             ucc_status_string(s));
        goto err;
    }
    while (UCC_INPROGRESS == (s = ucc_team_create_test(m->team))) {
        opal_progress();
    }
    if (s != UCC_OK) {
        fail("ucc_team_create_test on %s (cid %u) returned %s", m->name, m->cid,
             ucc_status_string(s));
        goto err;
    }
    return;
err:
    m->team = NULL;
    cm.enable = 0;
}

/* mca_coll_ucc_comm_query + enable: a team for communicators of two or more. */
static void comm_attach(module_t *m, MPI_Comm comm, const char *name, uint32_t cid,
                        int thread_multiple) {
    MPI_Group group, world_group;
    int i;
    int *ranks;
    memset(m, 0, sizeof(*m));
    m->comm = comm;
    m->name = name;
    m->cid = cid;
    m->is_world = comm == MPI_COMM_WORLD;
    MPI_Comm_rank(comm, &m->rank);
    MPI_Comm_size(comm, &m->size);
    m->world_of = (int *)malloc(sizeof(int) * (size_t)m->size);
    ranks = (int *)malloc(sizeof(int) * (size_t)m->size);
    MPI_Comm_group(comm, &group);
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    for (i = 0; i < m->size; ++i) {
        ranks[i] = i;
    }
    MPI_Group_translate_ranks(group, m->size, ranks, world_group, m->world_of);
    MPI_Group_free(&group);
    MPI_Group_free(&world_group);
    free(ranks);
    if (!cm.enable || m->size < 2) {
        return;
    }
    if (!cm.initialized && init_ctx(thread_multiple) != 0) {
        cm.enable = 0;
        return;
    }
    /* SET_COLL_PTR: a type the library does not list is not offloaded. */
    {
        static const ucc_coll_type_t wanted[] = {UCC_COLL_TYPE_BARRIER,   UCC_COLL_TYPE_BCAST,
                                                 UCC_COLL_TYPE_ALLREDUCE, UCC_COLL_TYPE_ALLTOALL,
                                                 UCC_COLL_TYPE_ALLTOALLV, UCC_COLL_TYPE_REDUCE,
                                                 UCC_COLL_TYPE_ALLGATHER, UCC_COLL_TYPE_ALLGATHERV};
        size_t k;
        for (k = 0; k < sizeof(wanted) / sizeof(wanted[0]); ++k) {
            if (!(cm.lib_attr.coll_types & (uint64_t)wanted[k])) {
                fail("lib attr coll_types 0x%llx lacks type 0x%x: coll/ucc would not offload it",
                     (unsigned long long)cm.lib_attr.coll_types, (unsigned)wanted[k]);
            }
        }
    }
    module_enable(m);
}

/* MPI_Comm_free: the attribute's delete callback destroys the team once. */
static void comm_release(module_t *m, int free_comm) {
    if (m->team != NULL) {
        ucc_status_t s = ucc_team_destroy(m->team);
        if (s != UCC_OK) {
            /* coll/ucc ignores it: anything but UCC_OK leaks the team. */
            fail("ucc_team_destroy on %s returned %s", m->name, ucc_status_string(s));
        }
        m->team = NULL;
    }
    if (free_comm) {
        cid_used[m->cid] = 0;
        MPI_Comm_free(&m->comm);
    }
    free(m->world_of);
}

/* ------------------------------------------------------------------ */
/* Datatypes and ops as coll_ucc_dtypes.h maps them. */

enum { K_SINT, K_UINT, K_FLOAT, K_BYTE, K_NONE };

typedef struct {
    MPI_Datatype mpi;
    ucc_datatype_t ucc; /* (ucc_datatype_t)-1: coll/ucc falls back */
    const char *name;
    int kind;
    size_t size;
} dtype_t;

#define DT_UNSUPPORTED ((ucc_datatype_t)-1)
#define OP_UNSUPPORTED ((ucc_reduction_op_t)-1)

static dtype_t dtypes[24];
static int n_dtypes;

static void add_dtype(MPI_Datatype mpi, ucc_datatype_t ucc, const char *name, int kind) {
    MPI_Aint lb, extent;
    dtype_t *d = &dtypes[n_dtypes++];
    d->mpi = mpi;
    d->ucc = ucc;
    d->name = name;
    d->kind = kind;
    MPI_Type_get_extent(mpi, &lb, &extent);
    d->size = (size_t)extent;
}

static MPI_Datatype contig3; /* a derived type: not predefined, so never offloaded */

static void init_dtypes(void) {
    add_dtype(MPI_CHAR, UCC_DT_INT8, "MPI_CHAR", K_SINT);
    add_dtype(MPI_SIGNED_CHAR, UCC_DT_INT8, "MPI_SIGNED_CHAR", K_SINT);
    add_dtype(MPI_UNSIGNED_CHAR, UCC_DT_UINT8, "MPI_UNSIGNED_CHAR", K_UINT);
    add_dtype(MPI_BYTE, UCC_DT_UINT8, "MPI_BYTE", K_BYTE);
    add_dtype(MPI_SHORT, UCC_DT_INT16, "MPI_SHORT", K_SINT);
    add_dtype(MPI_UNSIGNED_SHORT, UCC_DT_UINT16, "MPI_UNSIGNED_SHORT", K_UINT);
    add_dtype(MPI_INT, UCC_DT_INT32, "MPI_INT", K_SINT);
    add_dtype(MPI_UNSIGNED, UCC_DT_UINT32, "MPI_UNSIGNED", K_UINT);
    add_dtype(MPI_LONG, UCC_DT_INT64, "MPI_LONG", K_SINT);
    add_dtype(MPI_UNSIGNED_LONG, UCC_DT_UINT64, "MPI_UNSIGNED_LONG", K_UINT);
    add_dtype(MPI_LONG_LONG, UCC_DT_INT64, "MPI_LONG_LONG", K_SINT);
    add_dtype(MPI_UINT64_T, UCC_DT_UINT64, "MPI_UINT64_T", K_UINT);
    add_dtype(MPI_FLOAT, UCC_DT_FLOAT32, "MPI_FLOAT", K_FLOAT);
    add_dtype(MPI_DOUBLE, UCC_DT_FLOAT64, "MPI_DOUBLE", K_FLOAT);
    /* Not mapped by coll/ucc 4.1: Open MPI's own collectives run. */
    add_dtype(MPI_LONG_DOUBLE, DT_UNSUPPORTED, "MPI_LONG_DOUBLE", K_NONE);
    add_dtype(MPI_C_DOUBLE_COMPLEX, DT_UNSUPPORTED, "MPI_C_DOUBLE_COMPLEX", K_NONE);
    add_dtype(MPI_C_BOOL, DT_UNSUPPORTED, "MPI_C_BOOL", K_NONE);
    MPI_Type_contiguous(3, MPI_INT, &contig3);
    MPI_Type_commit(&contig3);
    add_dtype(contig3, DT_UNSUPPORTED, "contiguous(3, MPI_INT)", K_NONE);
}

static const dtype_t *dtype_named(const char *name) {
    int i;
    for (i = 0; i < n_dtypes; ++i) {
        if (strcmp(dtypes[i].name, name) == 0) {
            return &dtypes[i];
        }
    }
    fprintf(stderr, "no datatype %s\n", name);
    abort();
}

/* ompi_dtype_to_ucc_dtype: MPI_DATATYPE_NULL and anything unlisted fall back. */
static ucc_datatype_t ucc_dt_of(MPI_Datatype t) {
    int i;
    for (i = 0; i < n_dtypes; ++i) {
        if (dtypes[i].mpi == t) {
            return dtypes[i].ucc;
        }
    }
    return DT_UNSUPPORTED;
}

typedef struct {
    MPI_Op mpi;
    ucc_reduction_op_t ucc;
    const char *name;
} op_t;

static op_t ops[10];
static int n_ops;

static void init_ops(void) {
    op_t table[] = {{MPI_MAX, UCC_OP_MAX, "MPI_MAX"},    {MPI_MIN, UCC_OP_MIN, "MPI_MIN"},
                    {MPI_SUM, UCC_OP_SUM, "MPI_SUM"},    {MPI_PROD, UCC_OP_PROD, "MPI_PROD"},
                    {MPI_LAND, UCC_OP_LAND, "MPI_LAND"}, {MPI_BAND, UCC_OP_BAND, "MPI_BAND"},
                    {MPI_LOR, UCC_OP_LOR, "MPI_LOR"},    {MPI_BOR, UCC_OP_BOR, "MPI_BOR"},
                    {MPI_LXOR, UCC_OP_LXOR, "MPI_LXOR"}, {MPI_BXOR, UCC_OP_BXOR, "MPI_BXOR"}};
    n_ops = (int)(sizeof(table) / sizeof(table[0]));
    memcpy(ops, table, sizeof(table));
}

/* Whether MPI allows the op on the type (what reaches coll/ucc at all). */
static int op_valid(const op_t *o, const dtype_t *d) {
    int arith = o->ucc == UCC_OP_MAX || o->ucc == UCC_OP_MIN || o->ucc == UCC_OP_SUM ||
                o->ucc == UCC_OP_PROD;
    int logical = o->ucc == UCC_OP_LAND || o->ucc == UCC_OP_LOR || o->ucc == UCC_OP_LXOR;
    int bitwise = o->ucc == UCC_OP_BAND || o->ucc == UCC_OP_BOR || o->ucc == UCC_OP_BXOR;
    if (o->ucc == OP_UNSUPPORTED || d->kind == K_NONE || d->mpi == MPI_CHAR) {
        return 0;
    }
    switch (d->kind) {
        case K_SINT:
        case K_UINT:
            return arith || logical || bitwise;
        case K_FLOAT:
            return arith;
        case K_BYTE:
            return bitwise;
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Values: small, so every order of reduction gives the same bits. */

static void store(const dtype_t *d, void *buf, size_t i, int64_t v) {
    switch (d->ucc) {
        case UCC_DT_INT8:
        case UCC_DT_UINT8:
            ((uint8_t *)buf)[i] = (uint8_t)v;
            break;
        case UCC_DT_INT16:
        case UCC_DT_UINT16:
            ((uint16_t *)buf)[i] = (uint16_t)v;
            break;
        case UCC_DT_INT32:
        case UCC_DT_UINT32:
            ((uint32_t *)buf)[i] = (uint32_t)v;
            break;
        case UCC_DT_INT64:
        case UCC_DT_UINT64:
            ((uint64_t *)buf)[i] = (uint64_t)v;
            break;
        case UCC_DT_FLOAT32:
            ((float *)buf)[i] = (float)v;
            break;
        case UCC_DT_FLOAT64:
            ((double *)buf)[i] = (double)v;
            break;
        default:
            /* Types coll/ucc does not map: a clean value (no stray padding). */
            memset((char *)buf + i * d->size, 0, d->size);
            if (d->mpi == MPI_LONG_DOUBLE) {
                ((long double *)buf)[i] = (long double)v;
            } else if (d->mpi == MPI_C_DOUBLE_COMPLEX) {
                ((double *)buf)[2 * i] = (double)v;
            } else {
                memset((char *)buf + i * d->size, (int)(v & 0x7f), d->size);
            }
            break;
    }
}

static int64_t reduce_value(const op_t *o, const dtype_t *d, int rank, size_t i) {
    int64_t r = rank;
    int64_t k = (int64_t)(i % 1021);
    int sign = d->kind == K_SINT || d->kind == K_FLOAT;
    switch (o->ucc) {
        case UCC_OP_PROD:
            return 1 + ((r + k) % 2);
        case UCC_OP_SUM:
            return (r * 3 + k) % 7 - (sign ? 3 : 0);
        case UCC_OP_MAX:
        case UCC_OP_MIN:
            return (r * 37 + k * 11) % 100 - (sign ? 50 : 0);
        case UCC_OP_LAND:
        case UCC_OP_LOR:
        case UCC_OP_LXOR:
            return (r + k) % 3;
        default:
            return (r * 73 + k * 29 + 5) & 0x7f;
    }
}

static void fill_reduce(const op_t *o, const dtype_t *d, int rank, void *buf, size_t count) {
    size_t i;
    for (i = 0; i < count; ++i) {
        store(d, buf, i, reduce_value(o, d, rank, i));
    }
}

/* Movement collectives: bytes only; salt tells blocks apart. */
static void fill_bytes(void *buf, size_t bytes, int rank, unsigned salt) {
    size_t i;
    for (i = 0; i < bytes; ++i) {
        ((unsigned char *)buf)[i] = (unsigned char)(rank * 131u + i * 7u + salt * 17u + 1u);
    }
}

/* A buffer with guard bytes on both sides. */
typedef struct {
    unsigned char *base;
    size_t bytes;
} gbuf_t;

static void *gbuf_alloc(gbuf_t *g, size_t bytes) {
    g->bytes = bytes;
    g->base = (unsigned char *)malloc(bytes + 2 * GUARD);
    memset(g->base, GUARD_BYTE, bytes + 2 * GUARD);
    return g->base + GUARD;
}

static void *gbuf_data(gbuf_t *g) {
    return g->base + GUARD;
}

static int gbuf_guards_ok(const gbuf_t *g) {
    size_t i;
    for (i = 0; i < GUARD; ++i) {
        if (g->base[i] != GUARD_BYTE || g->base[GUARD + g->bytes + i] != GUARD_BYTE) {
            return 0;
        }
    }
    return 1;
}

static void gbuf_free(gbuf_t *g) {
    free(g->base);
    g->base = NULL;
}

/* ------------------------------------------------------------------ */
/* Running a collective the way coll/ucc does. */

typedef struct {
    int done;
    ucc_status_t status;
    ucc_coll_req_h req;
} nb_req_t;

/* mca_coll_ucc_completion: finalizes the UCC request from inside progress. */
static void completion_cb(void *data, ucc_status_t status) {
    nb_req_t *r = (nb_req_t *)data;
    ucc_collective_finalize(r->req);
    r->status = status;
    r->done = 1;
}

/* coll_ucc_req_wait */
static ucc_status_t req_wait(ucc_coll_req_h req) {
    ucc_status_t s;
    while (UCC_OK != (s = ucc_collective_test(req))) {
        if (s < 0) {
            ucc_collective_finalize(req);
            return s;
        }
        ucc_context_progress(cm.ctx);
        opal_progress();
    }
    return ucc_collective_finalize(req);
}

/* One call of an MPI collective on a communicator served by coll/ucc. */
typedef struct {
    int nb;          /* the i-variant */
    nb_req_t nbr;    /* its UCC request, completed by the callback */
    MPI_Request req; /* the fallback's request (i-variant) */
    int via_ucc;     /* UCC ran it */
    int fallback;    /* Open MPI's own collective ran it (neither: MPI returned early) */
} call_t;

/* The fields coll/ucc's initializer leaves zero: zero, or 0xa5 in poison mode. */
static void args_start(ucc_coll_args_t *a) {
    memset(a, st.poison ? POISON_BYTE : 0, sizeof(*a));
    a->mask = 0;
}

static void set_info(ucc_coll_buffer_info_t *info, const void *buf, ucc_count_t count,
                     ucc_datatype_t dt) {
    info->buffer = (void *)buf;
    info->count = count;
    info->datatype = dt;
    info->mem_type = UCC_MEMORY_TYPE_UNKNOWN;
}

static void set_info_v(ucc_coll_buffer_info_v_t *info, const void *buf, const int *counts,
                       const int *displs, ucc_datatype_t dt) {
    info->buffer = (void *)buf;
    info->counts = (ucc_count_t *)counts;
    info->displacements = (ucc_aint_t *)displs;
    info->datatype = dt;
    info->mem_type = UCC_MEMORY_TYPE_UNKNOWN;
}

/* COLL_UCC_REQ_INIT + COLL_UCC_POST_AND_CHECK (+ wait when blocking). Returns
 * what made coll/ucc fall back, or UCC_OK. */
static ucc_status_t submit(const module_t *m, ucc_coll_args_t *a, call_t *c) {
    ucc_coll_req_h req;
    ucc_status_t s;
    if (c->nb) {
        a->mask |= UCC_COLL_ARGS_FIELD_CB;
        a->cb.cb = completion_cb;
        a->cb.data = &c->nbr;
        c->nbr.done = 0;
    }
    if ((s = ucc_collective_init(a, &req, m->team)) != UCC_OK) {
        return s;
    }
    if (c->nb) {
        c->nbr.req = req;
    }
    if ((s = ucc_collective_post(req)) != UCC_OK) {
        ucc_collective_finalize(req);
        return s;
    }
    if (c->nb) {
        return UCC_OK;
    }
    return req_wait(req);
}

/* Runs `a` through UCC; on a refusal reports it and lets the caller fall back. */
static int offload(const module_t *m, ucc_coll_args_t *a, call_t *c) {
    ucc_status_t s = submit(m, a, c);
    if (s == UCC_ERR_INVALID_PARAM && st.mixed_sizes) {
        /* Known: rule V9 (model/VALIDITY.md) refuses src and dst element
         * sizes that differ (only MPI_PACKED/MPI_BYTE against a typed side,
         * or a type mismatch MPI calls erroneous, get here). */
        st.refused_v9++;
        return 0;
    }
    if (s != UCC_OK) {
        fail("the library refused what coll/ucc passes: %s (coll/ucc would fall back)",
             ucc_status_string(s));
        return 0;
    }
    c->via_ucc = 1;
    return 1;
}

/* MPI_Wait on the call's request: opal_progress until the callback ran. */
static void call_wait(call_t *c) {
    if (c->via_ucc && c->nb) {
        while (!c->nbr.done) {
            opal_progress();
        }
        if (c->nbr.status != UCC_OK) {
            fail("the non-blocking collective completed with %s", ucc_status_string(c->nbr.status));
        }
    } else if (c->nb && c->req != MPI_REQUEST_NULL) {
        MPI_Wait(&c->req, MPI_STATUS_IGNORE);
    }
    if (c->via_ucc) {
        st.through_ucc++;
    } else if (c->fallback) {
        st.fell_back++;
    }
}

static void call_start(call_t *c, int nb) {
    memset(c, 0, sizeof(*c));
    c->nb = nb;
    c->req = MPI_REQUEST_NULL;
}

/* ---- the collectives: MPI's early returns, coll/ucc's checks, the args ---- */

static void mpi_barrier(const module_t *m, call_t *c) {
    ucc_coll_args_t a;
    args_start(&a);
    a.coll_type = UCC_COLL_TYPE_BARRIER;
    if (m->team == NULL || !offload(m, &a, c)) {
        c->fallback = 1;
        if (c->nb) {
            MPI_Ibarrier(m->comm, &c->req);
        } else {
            MPI_Barrier(m->comm);
        }
    }
}

static void mpi_bcast(const module_t *m, void *buf, int count, MPI_Datatype dt, int root,
                      call_t *c) {
    ucc_coll_args_t a;
    ucc_datatype_t udt = ucc_dt_of(dt);
    if (count == 0) {
        return; /* MPI_Bcast returns before the collective */
    }
    if (m->team != NULL && udt != DT_UNSUPPORTED) {
        args_start(&a);
        a.coll_type = UCC_COLL_TYPE_BCAST;
        a.root = (uint64_t)root;
        set_info(&a.src.info, buf, (ucc_count_t)count, udt);
        if (offload(m, &a, c)) {
            return;
        }
    }
    c->fallback = 1;
    if (c->nb) {
        MPI_Ibcast(buf, count, dt, root, m->comm, &c->req);
    } else {
        MPI_Bcast(buf, count, dt, root, m->comm);
    }
}

static void mpi_allreduce(const module_t *m, const void *sbuf, void *rbuf, int count,
                          MPI_Datatype dt, const op_t *op, call_t *c) {
    ucc_coll_args_t a;
    ucc_datatype_t udt = ucc_dt_of(dt);
    if (count == 0) {
        return;
    }
    if (m->team != NULL && udt != DT_UNSUPPORTED && op->ucc != OP_UNSUPPORTED) {
        args_start(&a);
        a.coll_type = UCC_COLL_TYPE_ALLREDUCE;
        set_info(&a.src.info, sbuf, (ucc_count_t)count, udt);
        set_info(&a.dst.info, rbuf, (ucc_count_t)count, udt);
        a.op = op->ucc;
        if (sbuf == MPI_IN_PLACE) {
            a.mask |= UCC_COLL_ARGS_FIELD_FLAGS;
            a.flags = UCC_COLL_ARGS_FLAG_IN_PLACE;
        }
        if (offload(m, &a, c)) {
            return;
        }
    }
    c->fallback = 1;
    if (c->nb) {
        MPI_Iallreduce(sbuf, rbuf, count, dt, op->mpi, m->comm, &c->req);
    } else {
        MPI_Allreduce(sbuf, rbuf, count, dt, op->mpi, m->comm);
    }
}

static void mpi_reduce(const module_t *m, const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                       const op_t *op, int root, call_t *c) {
    ucc_coll_args_t a;
    ucc_datatype_t udt = ucc_dt_of(dt);
    if (count == 0) {
        return;
    }
    if (m->team != NULL && udt != DT_UNSUPPORTED && op->ucc != OP_UNSUPPORTED) {
        args_start(&a);
        a.coll_type = UCC_COLL_TYPE_REDUCE;
        a.root = (uint64_t)root;
        set_info(&a.src.info, sbuf, (ucc_count_t)count, udt);
        set_info(&a.dst.info, rbuf, (ucc_count_t)count, udt);
        a.op = op->ucc;
        if (sbuf == MPI_IN_PLACE) {
            a.mask |= UCC_COLL_ARGS_FIELD_FLAGS;
            a.flags = UCC_COLL_ARGS_FLAG_IN_PLACE;
        }
        if (offload(m, &a, c)) {
            return;
        }
    }
    c->fallback = 1;
    if (c->nb) {
        MPI_Ireduce(sbuf, rbuf, count, dt, op->mpi, root, m->comm, &c->req);
    } else {
        MPI_Reduce(sbuf, rbuf, count, dt, op->mpi, root, m->comm);
    }
}

static void mpi_alltoall(const module_t *m, const void *sbuf, int scount, MPI_Datatype sdt,
                         void *rbuf, int rcount, MPI_Datatype rdt, call_t *c) {
    ucc_coll_args_t a;
    ucc_datatype_t usdt = ucc_dt_of(sdt);
    ucc_datatype_t urdt = ucc_dt_of(rdt);
    if (rcount == 0) {
        return;
    }
    if (m->team != NULL && usdt != DT_UNSUPPORTED && urdt != DT_UNSUPPORTED) {
        args_start(&a);
        a.coll_type = UCC_COLL_TYPE_ALLTOALL;
        set_info(&a.src.info, sbuf, (ucc_count_t)(scount * m->size), usdt);
        set_info(&a.dst.info, rbuf, (ucc_count_t)(rcount * m->size), urdt);
        if (sbuf == MPI_IN_PLACE) {
            a.mask = UCC_COLL_ARGS_FIELD_FLAGS;
            a.flags = UCC_COLL_ARGS_FLAG_IN_PLACE;
        }
        if (offload(m, &a, c)) {
            return;
        }
    }
    c->fallback = 1;
    if (c->nb) {
        MPI_Ialltoall(sbuf, scount, sdt, rbuf, rcount, rdt, m->comm, &c->req);
    } else {
        MPI_Alltoall(sbuf, scount, sdt, rbuf, rcount, rdt, m->comm);
    }
}

static void mpi_alltoallv(const module_t *m, const void *sbuf, const int *scounts,
                          const int *sdispls, MPI_Datatype sdt, void *rbuf, const int *rcounts,
                          const int *rdispls, MPI_Datatype rdt, call_t *c) {
    ucc_coll_args_t a;
    ucc_datatype_t usdt, urdt;
    if (sbuf == MPI_IN_PLACE) { /* MPI_Alltoallv substitutes the receive side */
        scounts = rcounts;
        sdispls = rdispls;
        sdt = rdt;
    }
    usdt = ucc_dt_of(sdt);
    urdt = ucc_dt_of(rdt);
    if (m->team != NULL && usdt != DT_UNSUPPORTED && urdt != DT_UNSUPPORTED) {
        args_start(&a);
        a.coll_type = UCC_COLL_TYPE_ALLTOALLV;
        set_info_v(&a.src.info_v, sbuf, scounts, sdispls, usdt);
        set_info_v(&a.dst.info_v, rbuf, rcounts, rdispls, urdt);
        if (sbuf == MPI_IN_PLACE) {
            a.mask = UCC_COLL_ARGS_FIELD_FLAGS;
            a.flags = UCC_COLL_ARGS_FLAG_IN_PLACE;
        }
        if (offload(m, &a, c)) {
            return;
        }
    }
    c->fallback = 1;
    if (c->nb) {
        MPI_Ialltoallv(sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt, m->comm, &c->req);
    } else {
        MPI_Alltoallv(sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt, m->comm);
    }
}

static void mpi_allgather(const module_t *m, const void *sbuf, int scount, MPI_Datatype sdt,
                          void *rbuf, int rcount, MPI_Datatype rdt, call_t *c) {
    ucc_coll_args_t a;
    ucc_datatype_t usdt = ucc_dt_of(sdt);
    ucc_datatype_t urdt = ucc_dt_of(rdt);
    if ((sbuf != MPI_IN_PLACE && scount == 0) || rcount == 0) {
        return;
    }
    if (m->team != NULL && usdt != DT_UNSUPPORTED && urdt != DT_UNSUPPORTED) {
        args_start(&a);
        a.coll_type = UCC_COLL_TYPE_ALLGATHER;
        set_info(&a.src.info, sbuf, (ucc_count_t)scount, usdt);
        set_info(&a.dst.info, rbuf, (ucc_count_t)(rcount * m->size), urdt);
        if (sbuf == MPI_IN_PLACE) {
            a.mask = UCC_COLL_ARGS_FIELD_FLAGS;
            a.flags = UCC_COLL_ARGS_FLAG_IN_PLACE;
        }
        if (offload(m, &a, c)) {
            return;
        }
    }
    c->fallback = 1;
    if (c->nb) {
        MPI_Iallgather(sbuf, scount, sdt, rbuf, rcount, rdt, m->comm, &c->req);
    } else {
        MPI_Allgather(sbuf, scount, sdt, rbuf, rcount, rdt, m->comm);
    }
}

static void mpi_allgatherv(const module_t *m, const void *sbuf, int scount, MPI_Datatype sdt,
                           void *rbuf, const int *rcounts, const int *displs, MPI_Datatype rdt,
                           call_t *c) {
    ucc_coll_args_t a;
    ucc_datatype_t usdt = ucc_dt_of(sdt);
    ucc_datatype_t urdt = ucc_dt_of(rdt);
    int i, any = 0;
    for (i = 0; i < m->size; ++i) {
        any |= rcounts[i] != 0;
    }
    if (!any) {
        return;
    }
    if (m->team != NULL && usdt != DT_UNSUPPORTED && urdt != DT_UNSUPPORTED) {
        args_start(&a);
        a.coll_type = UCC_COLL_TYPE_ALLGATHERV;
        set_info(&a.src.info, sbuf, (ucc_count_t)scount, usdt);
        set_info_v(&a.dst.info_v, rbuf, rcounts, displs, urdt);
        if (sbuf == MPI_IN_PLACE) {
            a.mask = UCC_COLL_ARGS_FIELD_FLAGS;
            a.flags = UCC_COLL_ARGS_FLAG_IN_PLACE;
        }
        if (offload(m, &a, c)) {
            return;
        }
    }
    c->fallback = 1;
    if (c->nb) {
        MPI_Iallgatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, m->comm, &c->req);
    } else {
        MPI_Allgatherv(sbuf, scount, sdt, rbuf, rcounts, displs, rdt, m->comm);
    }
}

/* ------------------------------------------------------------------ */
/* Cases: run through coll/ucc's path, then through Open MPI's own
 * collective on copies of the same inputs, and compare every byte. */

static const int counts[] = {0, 1, 7, 1000, 40000};
#define N_COUNTS ((int)(sizeof(counts) / sizeof(counts[0])))

static void begin_case(const module_t *m, const char *fmt, ...) {
    va_list ap;
    int n;
    st.cases++;
    st.poison = (int)(st.cases & 1);
    n = snprintf(st.what, sizeof(st.what), "%s%s ", m->name, st.poison ? " poison" : "");
    va_start(ap, fmt);
    vsnprintf(st.what + n, sizeof(st.what) - (size_t)n, fmt, ap);
    va_end(ap);
}

static void end_case(void) {
    st.what[0] = '\0';
    st.mixed_sizes = 0;
}

static void compare(const gbuf_t *got, const void *want, size_t bytes, const char *buf_name) {
    size_t i;
    if (!gbuf_guards_ok(got)) {
        fail("%s: guard bytes around the buffer were overwritten", buf_name);
    }
    for (i = 0; i < bytes; ++i) {
        if (got->base[GUARD + i] != ((const unsigned char *)want)[i]) {
            fail("%s: byte %zu is 0x%02x, Open MPI's own collective gives 0x%02x", buf_name, i,
                 got->base[GUARD + i], ((const unsigned char *)want)[i]);
            return;
        }
    }
}

static void case_allreduce(const module_t *m, const dtype_t *d, const op_t *o, int count,
                           int in_place, int nb) {
    size_t bytes = (size_t)count * d->size;
    gbuf_t src, dst;
    void *ref = malloc(bytes + 1);
    void *s = gbuf_alloc(&src, bytes);
    void *r = gbuf_alloc(&dst, bytes);
    call_t c;
    begin_case(m, "allreduce %s %s count %d%s%s", d->name, o->name, count,
               in_place ? " in place" : "", nb ? " (iallreduce)" : "");
    fill_reduce(o, d, m->rank, s, (size_t)count);
    memcpy(r, s, bytes);
    call_start(&c, nb);
    mpi_allreduce(m, in_place ? MPI_IN_PLACE : s, r, count, d->mpi, o, &c);
    call_wait(&c);
    fill_reduce(o, d, m->rank, ref, (size_t)count);
    if (count > 0) {
        MPI_Allreduce(MPI_IN_PLACE, ref, count, d->mpi, o->mpi, m->comm);
    }
    compare(&dst, ref, bytes, "dst");
    if (!in_place) {
        fill_reduce(o, d, m->rank, ref, (size_t)count);
        compare(&src, ref, bytes, "src");
    }
    gbuf_free(&src);
    gbuf_free(&dst);
    free(ref);
    end_case();
}

static void case_reduce(const module_t *m, const dtype_t *d, const op_t *o, int count, int root,
                        int in_place, int nb) {
    size_t bytes = (size_t)count * d->size;
    int is_root = m->rank == root;
    int null_rbuf = !is_root && (st.cases % 3 == 0); /* non-roots often pass NULL */
    gbuf_t src, dst;
    void *ref = malloc(bytes + 1);
    void *s = gbuf_alloc(&src, bytes);
    void *r = gbuf_alloc(&dst, bytes);
    void *untouched = malloc(bytes + 1);
    call_t c;
    in_place = in_place && is_root;
    begin_case(m, "reduce %s %s count %d root %d%s%s%s", d->name, o->name, count, root,
               in_place ? " in place" : "", null_rbuf ? " NULL rbuf" : "", nb ? " (ireduce)" : "");
    fill_reduce(o, d, m->rank, s, (size_t)count);
    fill_bytes(r, bytes, m->rank, 99);
    if (in_place) {
        memcpy(r, s, bytes);
    }
    memcpy(untouched, r, bytes);
    call_start(&c, nb);
    mpi_reduce(m, in_place ? MPI_IN_PLACE : s, null_rbuf ? NULL : r, count, d->mpi, o, root, &c);
    call_wait(&c);
    fill_reduce(o, d, m->rank, ref, (size_t)count);
    if (count > 0) {
        MPI_Reduce(is_root ? MPI_IN_PLACE : ref, is_root ? ref : NULL, count, d->mpi, o->mpi, root,
                   m->comm);
    }
    compare(&dst, is_root ? ref : untouched, bytes, is_root ? "root dst" : "non-root dst");
    gbuf_free(&src);
    gbuf_free(&dst);
    free(ref);
    free(untouched);
    end_case();
}

static void case_bcast(const module_t *m, const dtype_t *d, int count, int root, int nb) {
    size_t bytes = (size_t)count * d->size;
    gbuf_t buf;
    void *b = gbuf_alloc(&buf, bytes);
    void *ref = malloc(bytes + 1);
    call_t c;
    begin_case(m, "bcast %s count %d root %d%s", d->name, count, root, nb ? " (ibcast)" : "");
    fill_bytes(b, bytes, m->rank, 1);
    memcpy(ref, b, bytes);
    call_start(&c, nb);
    mpi_bcast(m, b, count, d->mpi, root, &c);
    call_wait(&c);
    if (count > 0) {
        MPI_Bcast(ref, count, d->mpi, root, m->comm);
    }
    compare(&buf, ref, bytes, "buffer");
    gbuf_free(&buf);
    free(ref);
    end_case();
}

static void case_barrier(const module_t *m, int nb) {
    call_t c;
    begin_case(m, "barrier%s", nb ? " (ibarrier)" : "");
    call_start(&c, nb);
    mpi_barrier(m, &c);
    call_wait(&c);
    end_case();
}

/* Alltoall: `sd` with `smul` elements for each of `rd`'s (same bytes);
 * in place: the send side the caller passes is MPI_IN_PLACE with
 * (in_place_scount, rd). */
static void case_alltoall(const module_t *m, const dtype_t *sd, int smul, const dtype_t *rd,
                          int count, int in_place, int in_place_scount, int nb) {
    size_t block = (size_t)count * rd->size;
    size_t bytes = block * (size_t)m->size;
    gbuf_t src, dst;
    void *s = gbuf_alloc(&src, bytes);
    void *r = gbuf_alloc(&dst, bytes);
    void *ref = malloc(bytes + 1);
    void *ref_src = malloc(bytes + 1);
    call_t c;
    begin_case(m, "alltoall %s x%d -> %s count %d%s%s", sd->name, smul, rd->name, count,
               in_place ? " in place" : "", nb ? " (ialltoall)" : "");
    st.mixed_sizes = !in_place && sd->size != rd->size;
    fill_bytes(s, bytes, m->rank, 2);
    if (in_place) {
        memcpy(r, s, bytes);
    } else {
        fill_bytes(r, bytes, m->rank, 3);
    }
    memcpy(ref_src, s, bytes);
    call_start(&c, nb);
    if (in_place) {
        mpi_alltoall(m, MPI_IN_PLACE, in_place_scount, rd->mpi, r, count, rd->mpi, &c);
    } else {
        mpi_alltoall(m, s, count * smul, sd->mpi, r, count, rd->mpi, &c);
    }
    call_wait(&c);
    if (count > 0) {
        MPI_Alltoall(ref_src, count * smul, sd->mpi, ref, count, rd->mpi, m->comm);
    } else {
        memcpy(ref, gbuf_data(&dst), bytes);
    }
    compare(&dst, ref, bytes, "dst");
    if (!in_place) {
        compare(&src, ref_src, bytes, "src");
    }
    gbuf_free(&src);
    gbuf_free(&dst);
    free(ref);
    free(ref_src);
    end_case();
}

/* Per-pair counts (`zero_every` > 0: some pairs send nothing; `all_zero`:
 * none sends anything); symmetric for in place. Displacements leave gaps and
 * run backwards, so nothing assumes packed, ordered blocks. */
static int pair_count(int from, int to, int base, int all_zero, int symmetric) {
    int a = symmetric && to < from ? to : from;
    int b = symmetric && to < from ? from : to;
    if (all_zero || (a + 2 * b) % 3 == 1) {
        return 0;
    }
    return base + a + 2 * b;
}

static size_t layout(int n, const int *cnt, int *displs) {
    size_t total = 0;
    int j;
    for (j = n - 1; j >= 0; --j) {
        displs[j] = (int)total + 3;
        total += (size_t)cnt[j] + 3;
    }
    return total + 3;
}

static void case_alltoallv(const module_t *m, const dtype_t *d, int base, int all_zero,
                           int in_place, int nb) {
    int n = m->size;
    int *sc = (int *)malloc(sizeof(int) * (size_t)n);
    int *rc = (int *)malloc(sizeof(int) * (size_t)n);
    int *sdis = (int *)malloc(sizeof(int) * (size_t)n);
    int *rdis = (int *)malloc(sizeof(int) * (size_t)n);
    size_t sel, rel;
    gbuf_t src, dst;
    void *s, *r, *ref, *ref_src;
    call_t c;
    int j;
    begin_case(m, "alltoallv %s base %d%s%s%s", d->name, base, all_zero ? " all zero" : "",
               in_place ? " in place" : "", nb ? " (ialltoallv)" : "");
    for (j = 0; j < n; ++j) {
        sc[j] = pair_count(m->rank, j, base, all_zero, in_place);
        rc[j] = pair_count(j, m->rank, base, all_zero, in_place);
    }
    sel = layout(n, sc, sdis);
    rel = layout(n, rc, rdis);
    s = gbuf_alloc(&src, sel * d->size);
    r = gbuf_alloc(&dst, rel * d->size);
    ref = malloc(rel * d->size);
    ref_src = malloc(sel * d->size);
    fill_bytes(s, sel * d->size, m->rank, 4);
    fill_bytes(r, rel * d->size, m->rank, 5);
    if (in_place) {
        fill_bytes(r, rel * d->size, m->rank, 4);
    }
    memcpy(ref_src, s, sel * d->size);
    memcpy(ref, r, rel * d->size);
    call_start(&c, nb);
    mpi_alltoallv(m, in_place ? MPI_IN_PLACE : s, sc, sdis, d->mpi, r, rc, rdis, d->mpi, &c);
    call_wait(&c);
    MPI_Alltoallv(in_place ? MPI_IN_PLACE : ref_src, sc, sdis, d->mpi, ref, rc, rdis, d->mpi,
                  m->comm);
    compare(&dst, ref, rel * d->size, "dst");
    if (!in_place) {
        compare(&src, ref_src, sel * d->size, "src");
    }
    gbuf_free(&src);
    gbuf_free(&dst);
    free(ref);
    free(ref_src);
    free(sc);
    free(rc);
    free(sdis);
    free(rdis);
    end_case();
}

static void case_allgather(const module_t *m, const dtype_t *sd, int smul, const dtype_t *rd,
                           int count, int in_place, int nb) {
    size_t block = (size_t)count * rd->size;
    size_t bytes = block * (size_t)m->size;
    gbuf_t src, dst;
    void *s = gbuf_alloc(&src, block);
    void *r = gbuf_alloc(&dst, bytes);
    void *ref = malloc(bytes + 1);
    call_t c;
    begin_case(m, "allgather %s x%d -> %s count %d%s%s", sd->name, smul, rd->name, count,
               in_place ? " in place" : "", nb ? " (iallgather)" : "");
    st.mixed_sizes = !in_place && sd->size != rd->size;
    fill_bytes(s, block, m->rank, 6);
    fill_bytes(r, bytes, m->rank, 7);
    if (in_place) {
        memcpy((char *)r + (size_t)m->rank * block, s, block);
    }
    memcpy(ref, r, bytes);
    call_start(&c, nb);
    if (in_place) { /* the usual idiom: sendcount 0, sendtype = recvtype */
        mpi_allgather(m, MPI_IN_PLACE, 0, rd->mpi, r, count, rd->mpi, &c);
    } else {
        mpi_allgather(m, s, count * smul, sd->mpi, r, count, rd->mpi, &c);
    }
    call_wait(&c);
    if (count > 0) {
        MPI_Allgather(s, count * smul, sd->mpi, ref, count, rd->mpi, m->comm);
    }
    compare(&dst, ref, bytes, "dst");
    gbuf_free(&src);
    gbuf_free(&dst);
    free(ref);
    end_case();
}

static void case_allgatherv(const module_t *m, const dtype_t *d, int base, int in_place, int nb) {
    int n = m->size;
    int *rc = (int *)malloc(sizeof(int) * (size_t)n);
    int *dis = (int *)malloc(sizeof(int) * (size_t)n);
    size_t rel;
    gbuf_t src, dst;
    void *s, *r, *ref;
    call_t c;
    int j;
    begin_case(m, "allgatherv %s base %d%s%s", d->name, base, in_place ? " in place" : "",
               nb ? " (iallgatherv)" : "");
    for (j = 0; j < n; ++j) {
        rc[j] = j % 3 == 1 ? 0 : base + j;
    }
    rel = layout(n, rc, dis);
    s = gbuf_alloc(&src, (size_t)rc[m->rank] * d->size);
    r = gbuf_alloc(&dst, rel * d->size);
    ref = malloc(rel * d->size);
    fill_bytes(s, (size_t)rc[m->rank] * d->size, m->rank, 8);
    fill_bytes(r, rel * d->size, m->rank, 9);
    if (in_place) {
        memcpy((char *)r + (size_t)dis[m->rank] * d->size, s, (size_t)rc[m->rank] * d->size);
    }
    memcpy(ref, r, rel * d->size);
    call_start(&c, nb);
    mpi_allgatherv(m, in_place ? MPI_IN_PLACE : s, rc[m->rank], d->mpi, r, rc, dis, d->mpi, &c);
    call_wait(&c);
    MPI_Allgatherv(s, rc[m->rank], d->mpi, ref, rc, dis, d->mpi, m->comm);
    compare(&dst, ref, rel * d->size, "dst");
    gbuf_free(&src);
    gbuf_free(&dst);
    free(ref);
    free(rc);
    free(dis);
    end_case();
}

/* Several non-blocking collectives outstanding at once on one team, and a
 * blocking one posted behind them (what MPI_Iallreduce; MPI_Barrier;
 * MPI_Waitall does under coll/ucc). */
static void case_overlap(const module_t *m) {
    const dtype_t *d = dtype_named("MPI_INT");
    const op_t *sum = &ops[2];
    enum { K = 1000 };
    int *a = (int *)malloc(sizeof(int) * K);
    int *b = (int *)malloc(sizeof(int) * K);
    int *e = (int *)malloc(sizeof(int) * K);
    call_t c1, c2, c3;
    int i;
    begin_case(m, "iallreduce + ibcast + ibarrier outstanding, then barrier");
    for (i = 0; i < K; ++i) {
        a[i] = m->rank + i;
        b[i] = m->rank == m->size - 1 ? 7 * i : -1;
    }
    call_start(&c1, 1);
    call_start(&c2, 1);
    call_start(&c3, 1);
    mpi_allreduce(m, MPI_IN_PLACE, a, K, d->mpi, sum, &c1);
    mpi_bcast(m, b, K, d->mpi, m->size - 1, &c2);
    mpi_barrier(m, &c3);
    {
        call_t c4;
        call_start(&c4, 0);
        mpi_barrier(m, &c4);
        call_wait(&c4);
    }
    call_wait(&c3);
    call_wait(&c2);
    call_wait(&c1);
    for (i = 0; i < K; ++i) {
        e[i] = m->size * i + m->size * (m->size - 1) / 2;
    }
    if (memcmp(a, e, sizeof(int) * K) != 0) {
        fail("iallreduce result is wrong");
    }
    for (i = 0; i < K; ++i) {
        if (b[i] != 7 * i) {
            fail("ibcast element %d is %d, not %d", i, b[i], 7 * i);
            break;
        }
    }
    free(a);
    free(b);
    free(e);
    end_case();
}

/* Every collective coll/ucc offloads, over datatypes, ops, counts, roots, in
 * place and i-variants. `full`: the whole sweep; otherwise a shorter one. */
static void sweep(const module_t *m, int full) {
    static const char *move_types[] = {"MPI_BYTE",
                                       "MPI_SHORT",
                                       "MPI_INT",
                                       "MPI_DOUBLE",
                                       "MPI_LONG",
                                       "MPI_LONG_DOUBLE",
                                       "contiguous(3, MPI_INT)"};
    const int n_move = (int)(sizeof(move_types) / sizeof(move_types[0]));
    const dtype_t *mpi_int = dtype_named("MPI_INT");
    int roots[3];
    int ti, oi, ci, k = 0, ri;
    roots[0] = 0;
    roots[1] = m->size - 1;
    roots[2] = m->size / 2;

    case_barrier(m, 0);
    case_barrier(m, 1);

    /* Reductions: every valid (type, op) at a rotating count; int/double sum
     * at every count, in place and not, blocking and not. */
    for (ti = 0; ti < n_dtypes; ++ti) {
        for (oi = 0; oi < n_ops; ++oi) {
            const dtype_t *d = &dtypes[ti];
            const op_t *o = &ops[oi];
            int count;
            if (!op_valid(o, d) && !(d->kind == K_NONE && o->ucc == UCC_OP_SUM &&
                                     d->mpi != MPI_C_BOOL && d->mpi != contig3)) {
                continue;
            }
            ++k;
            if (!full && k % 3 != 0) {
                continue;
            }
            count = counts[1 + k % (N_COUNTS - 1)];
            case_allreduce(m, d, o, count, k % 2, k % 4 == 1);
            case_reduce(m, d, o, count, roots[k % 3], k % 2, k % 4 == 3);
        }
    }
    for (ci = 0; ci < N_COUNTS; ++ci) {
        int ip, nb;
        for (ip = 0; ip < 2; ++ip) {
            for (nb = 0; nb < 2; ++nb) {
                if (!full && (ip + nb + ci) % 2 != 0) {
                    continue;
                }
                case_allreduce(m, mpi_int, &ops[2], counts[ci], ip, nb);
                case_allreduce(m, dtype_named("MPI_DOUBLE"), &ops[2], counts[ci], ip, nb);
                for (ri = 0; ri < 3; ++ri) {
                    case_reduce(m, mpi_int, &ops[2], counts[ci], roots[ri], ip, nb);
                }
            }
        }
    }

    /* Movement collectives. */
    for (ti = 0; ti < n_move; ++ti) {
        const dtype_t *d = dtype_named(move_types[ti]);
        for (ci = 0; ci < N_COUNTS; ++ci) {
            int nb = (ti + ci) % 2;
            if (!full && (ti + ci) % 3 != 0) {
                continue;
            }
            for (ri = 0; ri < 3; ++ri) {
                case_bcast(m, d, counts[ci], roots[ri], (nb + ri) % 2);
            }
            case_alltoall(m, d, 1, d, counts[ci], 0, 0, nb);
            case_alltoall(m, d, 1, d, counts[ci], 1, counts[ci], !nb);
            case_allgather(m, d, 1, d, counts[ci], 0, nb);
            case_allgather(m, d, 1, d, counts[ci], 1, !nb);
        }
        case_alltoallv(m, d, 1 + ti, 0, 0, ti % 2);
        case_alltoallv(m, d, 2 + ti, 0, 1, !(ti % 2));
        case_alltoallv(m, d, 5000, 0, ti % 2, 0);
        case_alltoallv(m, d, 0, 1, 0, ti % 2);
        case_allgatherv(m, d, 1 + ti, 0, ti % 2);
        case_allgatherv(m, d, 3000 + ti, 1, !(ti % 2));
    }
    /* Send and receive sides with different types of the same bytes. */
    case_alltoall(m, dtype_named("MPI_INT"), 1, dtype_named("MPI_UNSIGNED"), 7, 0, 0, 0);
    case_alltoall(m, dtype_named("MPI_CHAR"), 4, mpi_int, 1000, 0, 0, 1);
    case_allgather(m, dtype_named("MPI_UNSIGNED_CHAR"), 8, dtype_named("MPI_DOUBLE"), 7, 0, 0);
    /* In place with sendcount 0: coll/ucc passes src.count 0 and the receive type. */
    case_alltoall(m, mpi_int, 1, mpi_int, 7, 1, 0, 0);

    case_overlap(m);
}

/* ------------------------------------------------------------------ */

int main(int argc, char **argv) {
    int thread_multiple = 0, leave_comm = 0;
    int provided, i, size;
    long totals[5], mine[5];
    module_t world, halves, reversed, dup1, dup2;
    MPI_Comm c_halves, c_reversed, c_dup1, c_dup2;
    uint32_t cid;
    ucc_status_t s;

    for (i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--thread-multiple") == 0) {
            thread_multiple = 1;
        } else if (strcmp(argv[i], "--leave-comm") == 0) {
            leave_comm = 1;
        } else {
            fprintf(stderr, "usage: ompi_coll_ucc [--thread-multiple] [--leave-comm]\n");
            return 2;
        }
    }
    if (thread_multiple) {
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
        thread_multiple = provided == MPI_THREAD_MULTIPLE;
    } else {
        MPI_Init(&argc, &argv);
    }
    world_comm = MPI_COMM_WORLD;
    MPI_Comm_rank(MPI_COMM_WORLD, &st.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    cid_used[0] = cid_used[1] = cid_used[2] = 1;
    init_dtypes();
    init_ops();

    /* MPI_Init: coll selection on MPI_COMM_WORLD creates the context and its team. */
    comm_attach(&world, MPI_COMM_WORLD, "world", 0, thread_multiple);
    sweep(&world, 1);

    /* MPI_Comm_split by parity: both halves get the same context id. */
    MPI_Comm_split(MPI_COMM_WORLD, st.rank % 2, st.rank, &c_halves);
    cid = next_cid(MPI_COMM_WORLD);
    comm_attach(&halves, c_halves, st.rank % 2 ? "odd half" : "even half", cid, thread_multiple);
    /* Reversed order: team rank i is world rank size-1-i. */
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - st.rank, &c_reversed);
    cid = next_cid(MPI_COMM_WORLD);
    comm_attach(&reversed, c_reversed, "reversed", cid, thread_multiple);
    /* A dup: the identity map, still given as a callback. */
    MPI_Comm_dup(MPI_COMM_WORLD, &c_dup1);
    cid = next_cid(MPI_COMM_WORLD);
    comm_attach(&dup1, c_dup1, "dup", cid, thread_multiple);

    sweep(&halves, 0);
    sweep(&reversed, 0);
    /* Interleaved on three teams sharing every process. */
    case_overlap(&dup1);
    case_overlap(&world);
    case_overlap(&reversed);
    sweep(&dup1, 0);

    /* Freed communicators give their ids back; the next one reuses one. */
    comm_release(&halves, 1);
    comm_release(&reversed, 1);
    MPI_Comm_dup(MPI_COMM_WORLD, &c_dup2);
    cid = next_cid(MPI_COMM_WORLD);
    comm_attach(&dup2, c_dup2, "dup (reused id)", cid, thread_multiple);
    sweep(&dup2, 0);
    comm_release(&dup2, 1);
    if (!leave_comm) {
        comm_release(&dup1, 1);
    }

    /* Tally before teardown (Open MPI's collectives only). */
    mine[0] = st.cases;
    mine[1] = st.failures;
    mine[2] = st.through_ucc;
    mine[3] = st.fell_back;
    mine[4] = st.refused_v9;

    /* MPI_Finalize: a fence while progressing, then the world attribute's
     * delete callback: team, context, library (coll/ucc ignores their
     * statuses; here each must be UCC_OK). */
    {
        MPI_Request fence;
        int done = 0;
        MPI_Ibarrier(MPI_COMM_WORLD, &fence);
        while (!done) {
            MPI_Test(&fence, &done, MPI_STATUS_IGNORE);
            if (cm.initialized) {
                ucc_context_progress(cm.ctx);
            }
        }
    }
    if (world.team != NULL && (s = ucc_team_destroy(world.team)) != UCC_OK) {
        fail("ucc_team_destroy on world returned %s", ucc_status_string(s));
    }
    world.team = NULL;
    if (cm.initialized) {
        /* With --leave-comm a team is still on the context. */
        if ((s = ucc_context_destroy(cm.ctx)) != UCC_OK) {
            fail("ucc_context_destroy returned %s", ucc_status_string(s));
        }
        if ((s = ucc_finalize(cm.lib)) != UCC_OK) {
            fail("ucc_finalize returned %s", ucc_status_string(s));
        }
    }
    free(world.world_of);
    if (leave_comm) {
        free(dup1.world_of);
    }
    mine[1] = st.failures;

    MPI_Reduce(mine, totals, 5, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    {
        long any = st.failures, all = 0;
        MPI_Allreduce(&any, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        if (st.rank == 0) {
            printf(
                "ompi_coll_ucc: %ld cases on %d processes, %ld failures (calls: %ld through "
                "UCC, %ld fell back, %ld of them refused by rule V9: element sizes differ)\n",
                totals[0], size, all, totals[2], totals[3], totals[4]);
        }
        MPI_Type_free(&contig3);
        MPI_Finalize();
        return all == 0 ? 0 : 1;
    }
}
