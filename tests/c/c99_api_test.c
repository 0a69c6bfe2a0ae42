/*
 * C99 conformance test of the public UCC headers.
 *
 * Built with -std=c99 -pedantic -Wall -Wextra -Werror and linked to libucc.so.
 * It checks that the headers are valid strict C99, that names, numeric values
 * and struct layouts are those of the reference UCC API, and that a few
 * library entry points resolve and behave sanely. Function signatures are
 * checked inside sizeof, so they do not create link-time references.
 */

#include <ucc/api/ucc.h>

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static unsigned g_checks = 0;
static unsigned g_failures = 0;

static void check_impl(int ok, const char *expr, const char *file, int line) {
    ++g_checks;
    if (!ok) {
        ++g_failures;
        fprintf(stderr, "%s:%d: check failed: %s\n", file, line, expr);
    }
}

#define CHECK(cond) check_impl((cond) ? 1 : 0, #cond, __FILE__, __LINE__)
#define CHECK_EQ(a, b) CHECK((long long)(a) == (long long)(b))
/* Field @a b of struct @a T comes after field @a a. */
#define ORDER(T, a, b) CHECK(offsetof(T, b) > offsetof(T, a))

/* Compile-time signature check: assigning a function to a pointer of the
 * expected type inside sizeof is type-checked but never evaluated. */
#define CHECK_SIG(fn, type)      \
    do {                         \
        type fp_ = NULL;         \
        (void)sizeof(fp_ = &fn); \
        (void)fp_;               \
        CHECK(1);                \
    } while (0)

static void test_status(void) {
    CHECK_EQ(UCC_OK, 0);
    CHECK_EQ(UCC_INPROGRESS, 1);
    CHECK_EQ(UCC_OPERATION_INITIALIZED, 2);
    CHECK_EQ(UCC_ERR_NOT_SUPPORTED, -1);
    CHECK_EQ(UCC_ERR_NOT_IMPLEMENTED, -2);
    CHECK_EQ(UCC_ERR_INVALID_PARAM, -3);
    CHECK_EQ(UCC_ERR_NO_MEMORY, -4);
    CHECK_EQ(UCC_ERR_NO_RESOURCE, -5);
    CHECK_EQ(UCC_ERR_NO_MESSAGE, -6);
    CHECK_EQ(UCC_ERR_NOT_FOUND, -7);
    CHECK_EQ(UCC_ERR_TIMED_OUT, -8);
    CHECK_EQ(UCC_ERR_IO_ERROR, -9);
    CHECK_EQ(UCC_ERR_LAST, -100);
    {
        ucc_status_t st = UCC_ERR_TIMED_OUT;
        CHECK(st < 0);
        st = UCC_OPERATION_INITIALIZED;
        CHECK(st >= 0);
    }
}

static void test_def(void) {
    CHECK_EQ(UCC_BIT(0), 1);
    CHECK_EQ(UCC_BIT(5), 32);
    CHECK_EQ(UCC_BIT(63), 0x8000000000000000ull);
    CHECK_EQ(UCC_MASK(3), 7);
    CHECK_EQ(UCC_MASK(16), 65535);
    CHECK_EQ(sizeof(UCC_BIT(0)), sizeof(unsigned long));

    CHECK_EQ(sizeof(ucc_count_t), 8);
    CHECK_EQ(sizeof(ucc_aint_t), 8);
    CHECK_EQ(sizeof(ucc_coll_id_t), 2);
    CHECK_EQ(sizeof(ucc_datatype_t), 8);
    CHECK_EQ(sizeof(ucc_context_addr_len_t), sizeof(size_t));
    CHECK_EQ(sizeof(ucc_context_addr_h), sizeof(void *));
    CHECK_EQ(sizeof(ucc_p2p_conn_t), sizeof(void *));
    CHECK_EQ(sizeof(ucc_mem_map_mem_h), sizeof(void *));
    {
        ucc_coll_id_t tag = (ucc_coll_id_t)65535;
        ++tag;
        CHECK_EQ(tag, 0); /* 16-bit unsigned */
    }

    CHECK_EQ(offsetof(ucc_coll_req_t, status), 0);
    CHECK_EQ(sizeof(ucc_coll_req_t), sizeof(ucc_status_t));
    CHECK_EQ(offsetof(ucc_coll_callback_t, cb), 0);
    CHECK(offsetof(ucc_coll_callback_t, data) > offsetof(ucc_coll_callback_t, cb));

    CHECK_EQ(UCC_CONFIG_PRINT_CONFIG, 1);
    CHECK_EQ(UCC_CONFIG_PRINT_HEADER, 2);
    CHECK_EQ(UCC_CONFIG_PRINT_DOC, 4);
    CHECK_EQ(UCC_CONFIG_PRINT_HIDDEN, 8);

    CHECK_EQ(UCC_DATATYPE_PREDEFINED, 0);
    CHECK_EQ(UCC_DATATYPE_GENERIC, 1);
    CHECK_EQ(UCC_DATATYPE_SHIFT, 3);
    CHECK_EQ(UCC_DATATYPE_CLASS_MASK, 7);
    CHECK_EQ(UCC_PREDEFINED_DT(5), 40);
    CHECK_EQ(sizeof(UCC_PREDEFINED_DT(1)), 8);
}

static void test_version(void) {
    CHECK_EQ(UCC_VERSION_MAJOR_SHIFT, 24);
    CHECK_EQ(UCC_VERSION_MINOR_SHIFT, 16);
    CHECK_EQ(UCC_API_MAJOR, 1);
    CHECK_EQ(UCC_API_MINOR, 3);
    CHECK_EQ(UCC_VERSION(1, 3), (1 << 24) | (3 << 16));
    CHECK_EQ(UCC_API_VERSION, UCC_VERSION(UCC_API_MAJOR, UCC_API_MINOR));
    CHECK(UCC_VERSION(1, 3) < UCC_VERSION(1, 4));
    CHECK(UCC_VERSION(1, 9) < UCC_VERSION(2, 0));
    CHECK(strcmp(UCC_VERSION_STRING, UCC_TEST_PROJECT_VERSION) == 0);
    CHECK(strlen(UCC_GIT_REVISION) > 0);
}

static void test_datatypes(void) {
    const ucc_datatype_t all[UCC_DT_PREDEFINED_LAST] = {UCC_DT_INT8,
                                                        UCC_DT_INT16,
                                                        UCC_DT_INT32,
                                                        UCC_DT_INT64,
                                                        UCC_DT_INT128,
                                                        UCC_DT_UINT8,
                                                        UCC_DT_UINT16,
                                                        UCC_DT_UINT32,
                                                        UCC_DT_UINT64,
                                                        UCC_DT_UINT128,
                                                        UCC_DT_FLOAT16,
                                                        UCC_DT_FLOAT32,
                                                        UCC_DT_FLOAT64,
                                                        UCC_DT_BFLOAT16,
                                                        UCC_DT_FLOAT128,
                                                        UCC_DT_FLOAT32_COMPLEX,
                                                        UCC_DT_FLOAT64_COMPLEX,
                                                        UCC_DT_FLOAT128_COMPLEX};
    unsigned i;

    CHECK_EQ(UCC_DT_PREDEFINED_LAST, 18);
    CHECK_EQ(UCC_DT_INT8, 0);
    CHECK_EQ(UCC_DT_INT16, 8);
    CHECK_EQ(UCC_DT_INT32, 16);
    CHECK_EQ(UCC_DT_INT64, 24);
    CHECK_EQ(UCC_DT_INT128, 32);
    CHECK_EQ(UCC_DT_UINT8, 40);
    CHECK_EQ(UCC_DT_UINT16, 48);
    CHECK_EQ(UCC_DT_UINT32, 56);
    CHECK_EQ(UCC_DT_UINT64, 64);
    CHECK_EQ(UCC_DT_UINT128, 72);
    CHECK_EQ(UCC_DT_FLOAT16, 80);
    CHECK_EQ(UCC_DT_FLOAT32, 88);
    CHECK_EQ(UCC_DT_FLOAT64, 96);
    CHECK_EQ(UCC_DT_BFLOAT16, 104);
    CHECK_EQ(UCC_DT_FLOAT128, 112);
    CHECK_EQ(UCC_DT_FLOAT32_COMPLEX, 120);
    CHECK_EQ(UCC_DT_FLOAT64_COMPLEX, 128);
    CHECK_EQ(UCC_DT_FLOAT128_COMPLEX, 136);
    for (i = 0; i < UCC_DT_PREDEFINED_LAST; ++i) {
        CHECK_EQ(all[i], (ucc_datatype_t)i << UCC_DATATYPE_SHIFT);
        CHECK_EQ(all[i] & UCC_DATATYPE_CLASS_MASK, UCC_DATATYPE_PREDEFINED);
    }

    CHECK_EQ(UCC_GENERIC_DT_OPS_FIELD_FLAGS, 1);
    CHECK_EQ(UCC_GENERIC_DT_OPS_FLAG_CONTIG, 1);
    CHECK_EQ(UCC_GENERIC_DT_OPS_FLAG_REDUCE, 2);

    /* ucc_reduce_cb_params_t field order. */
    CHECK_EQ(offsetof(ucc_reduce_cb_params_t, mask), 0);
    CHECK(offsetof(ucc_reduce_cb_params_t, src1) > offsetof(ucc_reduce_cb_params_t, mask));
    CHECK(offsetof(ucc_reduce_cb_params_t, src2) > offsetof(ucc_reduce_cb_params_t, src1));
    CHECK(offsetof(ucc_reduce_cb_params_t, dst) > offsetof(ucc_reduce_cb_params_t, src2));
    CHECK(offsetof(ucc_reduce_cb_params_t, n_vectors) > offsetof(ucc_reduce_cb_params_t, dst));
    CHECK(offsetof(ucc_reduce_cb_params_t, count) > offsetof(ucc_reduce_cb_params_t, n_vectors));
    CHECK(offsetof(ucc_reduce_cb_params_t, stride) > offsetof(ucc_reduce_cb_params_t, count));
    CHECK(offsetof(ucc_reduce_cb_params_t, dt) > offsetof(ucc_reduce_cb_params_t, stride));
    CHECK(offsetof(ucc_reduce_cb_params_t, cb_ctx) > offsetof(ucc_reduce_cb_params_t, dt));

    /* ucc_generic_dt_ops_t field order, reduce is a named member. */
    CHECK_EQ(offsetof(ucc_generic_dt_ops_t, mask), 0);
    CHECK(offsetof(ucc_generic_dt_ops_t, flags) > offsetof(ucc_generic_dt_ops_t, mask));
    CHECK(offsetof(ucc_generic_dt_ops_t, contig_size) > offsetof(ucc_generic_dt_ops_t, flags));
    CHECK(offsetof(ucc_generic_dt_ops_t, start_pack) > offsetof(ucc_generic_dt_ops_t, contig_size));
    CHECK(offsetof(ucc_generic_dt_ops_t, start_unpack) >
          offsetof(ucc_generic_dt_ops_t, start_pack));
    CHECK(offsetof(ucc_generic_dt_ops_t, packed_size) >
          offsetof(ucc_generic_dt_ops_t, start_unpack));
    CHECK(offsetof(ucc_generic_dt_ops_t, pack) > offsetof(ucc_generic_dt_ops_t, packed_size));
    CHECK(offsetof(ucc_generic_dt_ops_t, unpack) > offsetof(ucc_generic_dt_ops_t, pack));
    CHECK(offsetof(ucc_generic_dt_ops_t, finish) > offsetof(ucc_generic_dt_ops_t, unpack));
    CHECK(offsetof(ucc_generic_dt_ops_t, reduce) > offsetof(ucc_generic_dt_ops_t, finish));
    CHECK(offsetof(ucc_generic_dt_ops_t, reduce.cb_ctx) >
          offsetof(ucc_generic_dt_ops_t, reduce.cb));
    {
        ucc_generic_dt_ops_t ops;
        memset(&ops, 0, sizeof(ops));
        ops.mask = UCC_GENERIC_DT_OPS_FIELD_FLAGS;
        ops.flags = UCC_GENERIC_DT_OPS_FLAG_CONTIG | UCC_GENERIC_DT_OPS_FLAG_REDUCE;
        ops.contig_size = 12;
        ops.reduce.cb = NULL;
        ops.reduce.cb_ctx = &ops;
        CHECK(ops.reduce.cb_ctx == (void *)&ops);
    }
}

static void test_coll_types_and_ops(void) {
    const ucc_coll_type_t types[] = {
        UCC_COLL_TYPE_ALLGATHER,      UCC_COLL_TYPE_ALLGATHERV,      UCC_COLL_TYPE_ALLREDUCE,
        UCC_COLL_TYPE_ALLTOALL,       UCC_COLL_TYPE_ALLTOALLV,       UCC_COLL_TYPE_BARRIER,
        UCC_COLL_TYPE_BCAST,          UCC_COLL_TYPE_FANIN,           UCC_COLL_TYPE_FANOUT,
        UCC_COLL_TYPE_GATHER,         UCC_COLL_TYPE_GATHERV,         UCC_COLL_TYPE_REDUCE,
        UCC_COLL_TYPE_REDUCE_SCATTER, UCC_COLL_TYPE_REDUCE_SCATTERV, UCC_COLL_TYPE_SCATTER,
        UCC_COLL_TYPE_SCATTERV};
    unsigned i;
    uint64_t all = 0;

    CHECK_EQ(sizeof(types) / sizeof(types[0]), 16);
    for (i = 0; i < 16; ++i) {
        CHECK_EQ(types[i], UCC_BIT(i));
        all |= (uint64_t)types[i];
    }
    CHECK_EQ(all, UCC_MASK(16));
    CHECK_EQ(UCC_COLL_TYPE_LAST, 32769);
    CHECK_EQ(UCC_COLL_TYPE_FANIN, 128);
    CHECK_EQ(UCC_COLL_TYPE_FANOUT, 256);
    CHECK_EQ(UCC_COLL_TYPE_SCATTERV, 32768);

    CHECK_EQ(UCC_OP_SUM, 0);
    CHECK_EQ(UCC_OP_PROD, 1);
    CHECK_EQ(UCC_OP_MAX, 2);
    CHECK_EQ(UCC_OP_MIN, 3);
    CHECK_EQ(UCC_OP_LAND, 4);
    CHECK_EQ(UCC_OP_LOR, 5);
    CHECK_EQ(UCC_OP_LXOR, 6);
    CHECK_EQ(UCC_OP_BAND, 7);
    CHECK_EQ(UCC_OP_BOR, 8);
    CHECK_EQ(UCC_OP_BXOR, 9);
    CHECK_EQ(UCC_OP_MAXLOC, 10);
    CHECK_EQ(UCC_OP_MINLOC, 11);
    CHECK_EQ(UCC_OP_AVG, 12);
    CHECK_EQ(UCC_OP_LAST, 13);

    CHECK_EQ(UCC_THREAD_SINGLE, 0);
    CHECK_EQ(UCC_THREAD_FUNNELED, 1);
    CHECK_EQ(UCC_THREAD_MULTIPLE, 2);
    CHECK_EQ(UCC_NO_SYNC_COLLECTIVES, 0);
    CHECK_EQ(UCC_SYNC_COLLECTIVES, 1);

    CHECK_EQ(UCC_MEMORY_TYPE_HOST, 0);
    CHECK_EQ(UCC_MEMORY_TYPE_CUDA, 1);
    CHECK_EQ(UCC_MEMORY_TYPE_CUDA_MANAGED, 2);
    CHECK_EQ(UCC_MEMORY_TYPE_ROCM, 3);
    CHECK_EQ(UCC_MEMORY_TYPE_ROCM_MANAGED, 4);
    CHECK_EQ(UCC_MEMORY_TYPE_LAST, 5);
    CHECK_EQ(UCC_MEMORY_TYPE_UNKNOWN, 5);
    {
        enum ucc_memory_type mt = UCC_MEMORY_TYPE_CUDA;
        ucc_memory_type_t mt2 = mt;
        CHECK_EQ(mt2, 1);
    }
}

static void test_lib(void) {
    CHECK_EQ(UCC_LIB_PARAM_FIELD_THREAD_MODE, 1);
    CHECK_EQ(UCC_LIB_PARAM_FIELD_COLL_TYPES, 2);
    CHECK_EQ(UCC_LIB_PARAM_FIELD_REDUCTION_TYPES, 4);
    CHECK_EQ(UCC_LIB_PARAM_FIELD_SYNC_TYPE, 8);
    CHECK_EQ(UCC_LIB_ATTR_FIELD_THREAD_MODE, 1);
    CHECK_EQ(UCC_LIB_ATTR_FIELD_COLL_TYPES, 2);
    CHECK_EQ(UCC_LIB_ATTR_FIELD_REDUCTION_TYPES, 4);
    CHECK_EQ(UCC_LIB_ATTR_FIELD_SYNC_TYPE, 8);

    CHECK_EQ(offsetof(struct ucc_lib_params, mask), 0);
    CHECK(offsetof(ucc_lib_params_t, thread_mode) > offsetof(ucc_lib_params_t, mask));
    CHECK(offsetof(ucc_lib_params_t, coll_types) > offsetof(ucc_lib_params_t, thread_mode));
    CHECK(offsetof(ucc_lib_params_t, reduction_types) > offsetof(ucc_lib_params_t, coll_types));
    CHECK(offsetof(ucc_lib_params_t, sync_type) > offsetof(ucc_lib_params_t, reduction_types));
    CHECK_EQ(sizeof(ucc_lib_params_t), sizeof(struct ucc_lib_attr));
    CHECK_EQ(offsetof(ucc_lib_attr_t, sync_type), offsetof(ucc_lib_params_t, sync_type));
    {
        /* Designated initialisers as used by typical C99 programs. */
        ucc_lib_params_t p = {.mask = UCC_LIB_PARAM_FIELD_THREAD_MODE,
                              .thread_mode = UCC_THREAD_MULTIPLE};
        CHECK_EQ(p.thread_mode, UCC_THREAD_MULTIPLE);
        CHECK_EQ(p.coll_types, 0);
    }
}

static void test_context(void) {
    CHECK_EQ(UCC_CONTEXT_EXCLUSIVE, 0);
    CHECK_EQ(UCC_CONTEXT_SHARED, 1);
    CHECK_EQ(UCC_CONTEXT_PARAM_FIELD_TYPE, 1);
    CHECK_EQ(UCC_CONTEXT_PARAM_FIELD_SYNC_TYPE, 2);
    CHECK_EQ(UCC_CONTEXT_PARAM_FIELD_OOB, 4);
    CHECK_EQ(UCC_CONTEXT_PARAM_FIELD_ID, 8);
    CHECK_EQ(UCC_CONTEXT_PARAM_FIELD_MEM_PARAMS, 16);
    CHECK_EQ(UCC_CONTEXT_ATTR_FIELD_TYPE, 1);
    CHECK_EQ(UCC_CONTEXT_ATTR_FIELD_SYNC_TYPE, 2);
    CHECK_EQ(UCC_CONTEXT_ATTR_FIELD_CTX_ADDR, 4);
    CHECK_EQ(UCC_CONTEXT_ATTR_FIELD_CTX_ADDR_LEN, 8);
    CHECK_EQ(UCC_CONTEXT_ATTR_FIELD_WORK_BUFFER_SIZE, 16);
    CHECK_EQ(UCC_MEM_MAP_MODE_EXPORT, 0);
    CHECK_EQ(UCC_MEM_MAP_MODE_IMPORT, 1);
    CHECK_EQ(UCC_MEM_MAP_MODE_EXPORT_OFFLOAD, 2);
    CHECK_EQ(UCC_MEM_MAP_MODE_IMPORT_OFFLOAD, 3);
    CHECK_EQ(UCC_MEM_MAP_MODE_LAST, 4);

    CHECK_EQ(offsetof(ucc_oob_coll_t, allgather), 0);
    CHECK(offsetof(ucc_oob_coll_t, req_test) > offsetof(ucc_oob_coll_t, allgather));
    CHECK(offsetof(ucc_oob_coll_t, req_free) > offsetof(ucc_oob_coll_t, req_test));
    CHECK(offsetof(ucc_oob_coll_t, coll_info) > offsetof(ucc_oob_coll_t, req_free));
    CHECK(offsetof(ucc_oob_coll_t, n_oob_eps) > offsetof(ucc_oob_coll_t, coll_info));
    CHECK(offsetof(ucc_oob_coll_t, oob_ep) > offsetof(ucc_oob_coll_t, n_oob_eps));
    CHECK_EQ(sizeof(((ucc_oob_coll_t *)0)->oob_ep), 4);
    CHECK_EQ(sizeof(ucc_context_oob_coll_t), sizeof(struct ucc_oob_coll));
    CHECK_EQ(sizeof(ucc_team_oob_coll_t), sizeof(ucc_oob_coll_t));

    CHECK_EQ(offsetof(ucc_mem_map_t, address), 0);
    CHECK(offsetof(ucc_mem_map_t, len) > 0);
    CHECK_EQ(offsetof(ucc_mem_map_params_t, segments), 0);
    CHECK(offsetof(ucc_mem_map_params_t, n_segments) > 0);
    CHECK_EQ(sizeof(((ucc_mem_map_params_t *)0)->n_segments), 8);

    CHECK_EQ(offsetof(ucc_context_params_t, mask), 0);
    CHECK(offsetof(ucc_context_params_t, type) > offsetof(ucc_context_params_t, mask));
    CHECK(offsetof(ucc_context_params_t, sync_type) > offsetof(ucc_context_params_t, type));
    CHECK(offsetof(ucc_context_params_t, oob) > offsetof(ucc_context_params_t, sync_type));
    CHECK(offsetof(ucc_context_params_t, ctx_id) > offsetof(ucc_context_params_t, oob));
    CHECK(offsetof(ucc_context_params_t, mem_params) > offsetof(ucc_context_params_t, ctx_id));

    CHECK_EQ(offsetof(ucc_context_attr_t, mask), 0);
    CHECK(offsetof(ucc_context_attr_t, type) > offsetof(ucc_context_attr_t, mask));
    CHECK(offsetof(ucc_context_attr_t, sync_type) > offsetof(ucc_context_attr_t, type));
    CHECK(offsetof(ucc_context_attr_t, ctx_addr) > offsetof(ucc_context_attr_t, sync_type));
    CHECK(offsetof(ucc_context_attr_t, ctx_addr_len) > offsetof(ucc_context_attr_t, ctx_addr));
    CHECK(offsetof(ucc_context_attr_t, global_work_buffer_size) >
          offsetof(ucc_context_attr_t, ctx_addr_len));
}

static uint64_t map_cb(uint64_t ep, void *ctx) {
    (void)ctx;
    return ep * 2;
}

static void test_team(void) {
    CHECK_EQ(UCC_TEAM_PARAM_FIELD_ORDERING, UCC_BIT(0));
    CHECK_EQ(UCC_TEAM_PARAM_FIELD_OUTSTANDING_COLLS, UCC_BIT(1));
    CHECK_EQ(UCC_TEAM_PARAM_FIELD_EP, UCC_BIT(2));
    CHECK_EQ(UCC_TEAM_PARAM_FIELD_EP_LIST, UCC_BIT(3));
    CHECK_EQ(UCC_TEAM_PARAM_FIELD_EP_RANGE, UCC_BIT(4));
    CHECK_EQ(UCC_TEAM_PARAM_FIELD_TEAM_SIZE, UCC_BIT(5));
    CHECK_EQ(UCC_TEAM_PARAM_FIELD_SYNC_TYPE, UCC_BIT(6));
    CHECK_EQ(UCC_TEAM_PARAM_FIELD_OOB, UCC_BIT(7));
    CHECK_EQ(UCC_TEAM_PARAM_FIELD_P2P_CONN, UCC_BIT(8));
    CHECK_EQ(UCC_TEAM_PARAM_FIELD_MEM_PARAMS, UCC_BIT(9));
    CHECK_EQ(UCC_TEAM_PARAM_FIELD_EP_MAP, UCC_BIT(10));
    CHECK_EQ(UCC_TEAM_PARAM_FIELD_ID, UCC_BIT(11));
    CHECK_EQ(UCC_TEAM_PARAM_FIELD_FLAGS, UCC_BIT(12));

    CHECK_EQ(UCC_TEAM_ATTR_FIELD_POST_ORDERING, UCC_BIT(0));
    CHECK_EQ(UCC_TEAM_ATTR_FIELD_OUTSTANDING_CALLS, UCC_BIT(1));
    CHECK_EQ(UCC_TEAM_ATTR_FIELD_EP, UCC_BIT(2));
    CHECK_EQ(UCC_TEAM_ATTR_FIELD_EP_RANGE, UCC_BIT(3));
    CHECK_EQ(UCC_TEAM_ATTR_FIELD_SYNC_TYPE, UCC_BIT(4));
    CHECK_EQ(UCC_TEAM_ATTR_FIELD_MEM_PARAMS, UCC_BIT(5));
    CHECK_EQ(UCC_TEAM_ATTR_FIELD_SIZE, UCC_BIT(6));
    CHECK_EQ(UCC_TEAM_ATTR_FIELD_EPS, UCC_BIT(7));
    CHECK_EQ(UCC_TEAM_FLAG_COLL_WORK_BUFFER, 1);

    CHECK_EQ(UCC_COLLECTIVE_POST_ORDERED, 0);
    CHECK_EQ(UCC_COLLECTIVE_POST_UNORDERED, 1);
    CHECK_EQ(UCC_COLLECTIVE_INIT_ORDERED, 2);
    CHECK_EQ(UCC_COLLECTIVE_INIT_UNORDERED, 3);
    CHECK_EQ(UCC_COLLECTIVE_INIT_AND_POST_ORDERED, 4);
    CHECK_EQ(UCC_COLLECTIVE_INIT_AND_POST_UNORDERED, 5);
    CHECK_EQ(UCC_COLLECTIVE_EP_RANGE_CONTIG, 0);
    CHECK_EQ(UCC_COLLECTIVE_EP_RANGE_NONCONTIG, 1);
    CHECK_EQ(UCC_EP_MAP_FULL, 1);
    CHECK_EQ(UCC_EP_MAP_STRIDED, 2);
    CHECK_EQ(UCC_EP_MAP_ARRAY, 3);
    CHECK_EQ(UCC_EP_MAP_CB, 4);

    /* The ep map union is anonymous: its members are reached directly. */
    CHECK_EQ(offsetof(ucc_ep_map_t, type), 0);
    CHECK(offsetof(ucc_ep_map_t, ep_num) > offsetof(ucc_ep_map_t, type));
    CHECK(offsetof(ucc_ep_map_t, strided) > offsetof(ucc_ep_map_t, ep_num));
    CHECK_EQ(offsetof(ucc_ep_map_t, strided), offsetof(ucc_ep_map_t, array));
    CHECK_EQ(offsetof(ucc_ep_map_t, strided), offsetof(ucc_ep_map_t, cb));
    {
        struct ucc_ep_map_t m;
        int arr[4] = {3, 2, 1, 0};
        memset(&m, 0, sizeof(m));
        m.type = UCC_EP_MAP_STRIDED;
        m.ep_num = 4;
        m.strided.start = 7;
        m.strided.stride = -2;
        CHECK_EQ(m.strided.start + 3 * m.strided.stride, 1);
        m.type = UCC_EP_MAP_ARRAY;
        m.array.map = arr;
        m.array.elem_size = sizeof(int);
        CHECK_EQ(((int *)m.array.map)[1], 2);
        m.type = UCC_EP_MAP_CB;
        m.cb.cb = map_cb;
        m.cb.cb_ctx = NULL;
        CHECK_EQ(m.cb.cb(5, m.cb.cb_ctx), 10);
    }

    CHECK_EQ(offsetof(ucc_team_p2p_conn_t, conn_info_lookup), 0);
    CHECK(offsetof(ucc_team_p2p_conn_t, conn_info_release) >
          offsetof(ucc_team_p2p_conn_t, conn_info_lookup));
    CHECK(offsetof(ucc_team_p2p_conn_t, conn_ctx) >
          offsetof(ucc_team_p2p_conn_t, conn_info_release));
    CHECK(offsetof(ucc_team_p2p_conn_t, req_test) > offsetof(ucc_team_p2p_conn_t, conn_ctx));
    CHECK(offsetof(ucc_team_p2p_conn_t, req_free) > offsetof(ucc_team_p2p_conn_t, req_test));

    CHECK_EQ(offsetof(ucc_team_params_t, mask), 0);
    ORDER(ucc_team_params_t, mask, flags);
    ORDER(ucc_team_params_t, flags, ordering);
    ORDER(ucc_team_params_t, ordering, outstanding_colls);
    ORDER(ucc_team_params_t, outstanding_colls, ep);
    ORDER(ucc_team_params_t, ep, ep_list);
    ORDER(ucc_team_params_t, ep_list, ep_range);
    ORDER(ucc_team_params_t, ep_range, team_size);
    ORDER(ucc_team_params_t, team_size, sync_type);
    ORDER(ucc_team_params_t, sync_type, oob);
    ORDER(ucc_team_params_t, oob, p2p_conn);
    ORDER(ucc_team_params_t, p2p_conn, mem_params);
    ORDER(ucc_team_params_t, mem_params, ep_map);
    ORDER(ucc_team_params_t, ep_map, id);

    CHECK_EQ(offsetof(ucc_team_attr_t, mask), 0);
    ORDER(ucc_team_attr_t, mask, ordering);
    ORDER(ucc_team_attr_t, ordering, outstanding_colls);
    ORDER(ucc_team_attr_t, outstanding_colls, ep);
    ORDER(ucc_team_attr_t, ep, ep_range);
    ORDER(ucc_team_attr_t, ep_range, sync_type);
    ORDER(ucc_team_attr_t, sync_type, mem_params);
    ORDER(ucc_team_attr_t, mem_params, size);
    ORDER(ucc_team_attr_t, size, eps);
    CHECK_EQ(sizeof(((ucc_team_attr_t *)0)->size), 4);
}

static void test_coll_args(void) {
    CHECK_EQ(UCC_COLL_ARGS_FLAG_IN_PLACE, UCC_BIT(0));
    CHECK_EQ(UCC_COLL_ARGS_FLAG_PERSISTENT, UCC_BIT(1));
    CHECK_EQ(UCC_COLL_ARGS_FLAG_COUNT_64BIT, UCC_BIT(2));
    CHECK_EQ(UCC_COLL_ARGS_FLAG_DISPLACEMENTS_64BIT, UCC_BIT(3));
    CHECK_EQ(UCC_COLL_ARGS_FLAG_CONTIG_SRC_BUFFER, UCC_BIT(4));
    CHECK_EQ(UCC_COLL_ARGS_FLAG_CONTIG_DST_BUFFER, UCC_BIT(5));
    CHECK_EQ(UCC_COLL_ARGS_FLAG_TIMEOUT, UCC_BIT(6));
    CHECK_EQ(UCC_COLL_ARGS_FLAG_MEM_MAPPED_BUFFERS, UCC_BIT(7));
    CHECK_EQ(UCC_COLL_ARGS_FLAG_SRC_MEMH_GLOBAL, UCC_BIT(8));
    CHECK_EQ(UCC_COLL_ARGS_FLAG_DST_MEMH_GLOBAL, UCC_BIT(9));

    CHECK_EQ(UCC_COLL_ARGS_HINT_OPTMIZE_OVERLAP_CPU, UCC_BIT(24));
    CHECK_EQ(UCC_COLL_ARGS_HINT_OPTMIZE_OVERLAP_GPU, UCC_BIT(25));
    CHECK_EQ(UCC_COLL_ARGS_HINT_OPTIMIZE_OVERLAP_CPU, UCC_BIT(24));
    CHECK_EQ(UCC_COLL_ARGS_HINT_OPTIMIZE_OVERLAP_GPU, UCC_BIT(25));
    CHECK_EQ(UCC_COLL_ARGS_HINT_OPTIMIZE_LATENCY, UCC_BIT(26));
    CHECK_EQ(UCC_COLL_ARGS_HINT_CONTIG_SRC_BUFFER, UCC_COLL_ARGS_FLAG_CONTIG_SRC_BUFFER);
    CHECK_EQ(UCC_COLL_ARGS_HINT_CONTIG_DST_BUFFER, UCC_COLL_ARGS_FLAG_CONTIG_DST_BUFFER);

    CHECK_EQ(UCC_ERR_TYPE_LOCAL, 0);
    CHECK_EQ(UCC_ERR_TYPE_GLOBAL, 1);

    CHECK_EQ(UCC_COLL_ARGS_FIELD_FLAGS, UCC_BIT(0));
    CHECK_EQ(UCC_COLL_ARGS_FIELD_TAG, UCC_BIT(1));
    CHECK_EQ(UCC_COLL_ARGS_FIELD_CB, UCC_BIT(2));
    CHECK_EQ(UCC_COLL_ARGS_FIELD_GLOBAL_WORK_BUFFER, UCC_BIT(3));
    CHECK_EQ(UCC_COLL_ARGS_FIELD_ACTIVE_SET, UCC_BIT(4));
    CHECK_EQ(UCC_COLL_ARGS_FIELD_MEM_MAP_SRC_MEMH, UCC_BIT(5));
    CHECK_EQ(UCC_COLL_ARGS_FIELD_MEM_MAP_DST_MEMH, UCC_BIT(6));

    CHECK_EQ(offsetof(ucc_coll_buffer_info_t, buffer), 0);
    ORDER(ucc_coll_buffer_info_t, buffer, count);
    ORDER(ucc_coll_buffer_info_t, count, datatype);
    ORDER(ucc_coll_buffer_info_t, datatype, mem_type);
    CHECK_EQ(offsetof(ucc_coll_buffer_info_v_t, buffer), 0);
    ORDER(ucc_coll_buffer_info_v_t, buffer, counts);
    ORDER(ucc_coll_buffer_info_v_t, counts, displacements);
    ORDER(ucc_coll_buffer_info_v_t, displacements, datatype);
    ORDER(ucc_coll_buffer_info_v_t, datatype, mem_type);

    CHECK_EQ(offsetof(ucc_coll_args_t, mask), 0);
    ORDER(ucc_coll_args_t, mask, coll_type);
    ORDER(ucc_coll_args_t, coll_type, src);
    ORDER(ucc_coll_args_t, src, dst);
    ORDER(ucc_coll_args_t, dst, op);
    ORDER(ucc_coll_args_t, op, flags);
    ORDER(ucc_coll_args_t, flags, root);
    ORDER(ucc_coll_args_t, root, error_type);
    ORDER(ucc_coll_args_t, error_type, tag);
    ORDER(ucc_coll_args_t, tag, global_work_buffer);
    ORDER(ucc_coll_args_t, global_work_buffer, cb);
    ORDER(ucc_coll_args_t, cb, timeout);
    ORDER(ucc_coll_args_t, timeout, active_set);
    ORDER(ucc_coll_args_t, active_set, src_memh);
    ORDER(ucc_coll_args_t, src_memh, dst_memh);
    CHECK_EQ(offsetof(ucc_coll_args_t, src.info), offsetof(ucc_coll_args_t, src.info_v));
    CHECK_EQ(offsetof(ucc_coll_args_t, dst.info.buffer),
             offsetof(ucc_coll_args_t, dst.info_v.buffer));
    CHECK_EQ(offsetof(ucc_coll_args_t, src_memh.local_memh),
             offsetof(ucc_coll_args_t, src_memh.global_memh));
    ORDER(ucc_coll_args_t, active_set.start, active_set.stride);
    ORDER(ucc_coll_args_t, active_set.stride, active_set.size);
    CHECK_EQ(sizeof(((ucc_coll_args_t *)0)->tag), 2);
    CHECK_EQ(sizeof(((ucc_coll_args_t *)0)->timeout), sizeof(double));
    /* The 1.3 layout is a prefix: the trailing memh unions start right after
     * active_set. */
    CHECK_EQ(offsetof(ucc_coll_args_t, src_memh),
             offsetof(ucc_coll_args_t, active_set) + 3 * sizeof(uint64_t));

#if UINTPTR_MAX == 0xffffffffffffffffull
    /* Exact LP64 ABI of the reference header. */
    CHECK_EQ(sizeof(ucc_coll_buffer_info_t), 32);
    CHECK_EQ(sizeof(ucc_coll_buffer_info_v_t), 40);
    CHECK_EQ(offsetof(ucc_coll_args_t, src), 16);
    CHECK_EQ(offsetof(ucc_coll_args_t, dst), 56);
    CHECK_EQ(offsetof(ucc_coll_args_t, op), 96);
    CHECK_EQ(offsetof(ucc_coll_args_t, flags), 104);
    CHECK_EQ(offsetof(ucc_coll_args_t, root), 112);
    CHECK_EQ(offsetof(ucc_coll_args_t, error_type), 120);
    CHECK_EQ(offsetof(ucc_coll_args_t, tag), 124);
    CHECK_EQ(offsetof(ucc_coll_args_t, global_work_buffer), 128);
    CHECK_EQ(offsetof(ucc_coll_args_t, cb), 136);
    CHECK_EQ(offsetof(ucc_coll_args_t, timeout), 152);
    CHECK_EQ(offsetof(ucc_coll_args_t, active_set), 160);
    CHECK_EQ(offsetof(ucc_coll_args_t, src_memh), 184);
    CHECK_EQ(offsetof(ucc_coll_args_t, dst_memh), 192);
    CHECK_EQ(sizeof(ucc_coll_args_t), 200);
    CHECK_EQ(sizeof(ucc_oob_coll_t), 40);
    CHECK_EQ(sizeof(ucc_ep_map_t), 32);
    CHECK_EQ(sizeof(ucc_ev_t), 32);
#endif

    {
        /* Typical C99 use: designated initialisers with nested unions. */
        float sbuf[4] = {1, 2, 3, 4};
        float rbuf[4];
        ucc_coll_args_t a = {
            .mask = UCC_COLL_ARGS_FIELD_FLAGS,
            .coll_type = UCC_COLL_TYPE_ALLREDUCE,
            .src.info = {sbuf, 4, UCC_DT_FLOAT32, UCC_MEMORY_TYPE_HOST},
            .dst.info = {.buffer = rbuf,
                         .count = 4,
                         .datatype = UCC_DT_FLOAT32,
                         .mem_type = UCC_MEMORY_TYPE_HOST},
            .op = UCC_OP_SUM,
            .flags = UCC_COLL_ARGS_FLAG_PERSISTENT | UCC_COLL_ARGS_HINT_OPTIMIZE_LATENCY,
            .active_set = {.start = 0, .stride = 1, .size = 2},
        };
        CHECK(a.src.info.buffer == (void *)sbuf);
        CHECK_EQ(a.dst.info.count, 4);
        CHECK_EQ(a.flags, UCC_BIT(1) | UCC_BIT(26));
        CHECK_EQ(a.active_set.size, 2);
        CHECK(a.src_memh.local_memh == NULL);
        CHECK(a.dst_memh.global_memh == NULL);
    }
}

static void test_events(void) {
    CHECK_EQ(UCC_EVENT_COLLECTIVE_POST, 1);
    CHECK_EQ(UCC_EVENT_COLLECTIVE_COMPLETE, 2);
    CHECK_EQ(UCC_EVENT_COMPUTE_COMPLETE, 4);
    CHECK_EQ(UCC_EVENT_OVERFLOW, 8);
    CHECK_EQ(UCC_EE_FIRST, 0);
    CHECK_EQ(UCC_EE_CUDA_STREAM, 0);
    CHECK_EQ(UCC_EE_CPU_THREAD, 1);
    CHECK_EQ(UCC_EE_ROCM_STREAM, 2);
    CHECK_EQ(UCC_EE_LAST, 3);
    CHECK_EQ(UCC_EE_UNKNOWN, 3);
    {
        enum ucc_event_type et = UCC_EVENT_COMPUTE_COMPLETE;
        enum ucc_ee_type eet = UCC_EE_CPU_THREAD;
        struct ucc_event ev;
        struct ucc_ee_params ep;
        ev.ev_type = et;
        ep.ee_type = eet;
        CHECK_EQ(ev.ev_type, 4);
        CHECK_EQ(ep.ee_type, 1);
    }
    CHECK_EQ(offsetof(ucc_ev_t, ev_type), 0);
    ORDER(ucc_ev_t, ev_type, ev_context);
    ORDER(ucc_ev_t, ev_context, ev_context_size);
    ORDER(ucc_ev_t, ev_context_size, req);
    CHECK_EQ(offsetof(ucc_ee_params_t, ee_type), 0);
    ORDER(ucc_ee_params_t, ee_type, ee_context);
    ORDER(ucc_ee_params_t, ee_context, ee_context_size);
}

static void test_inline_test(void) {
    ucc_coll_req_t req;
    ucc_coll_req_h h = &req;
    req.status = UCC_INPROGRESS;
    CHECK_EQ(ucc_collective_test(h), UCC_INPROGRESS);
    req.status = UCC_ERR_TIMED_OUT;
    CHECK_EQ(ucc_collective_test(h), UCC_ERR_TIMED_OUT);
    req.status = UCC_OK;
    CHECK_EQ(ucc_collective_test(h), UCC_OK);
}

typedef ucc_status_t (*lib_config_read_fn)(const char *, const char *, ucc_lib_config_h *);
typedef void (*lib_config_release_fn)(ucc_lib_config_h);
typedef void (*lib_config_print_fn)(const ucc_lib_config_h, FILE *, const char *,
                                    ucc_config_print_flags_t);
typedef ucc_status_t (*lib_config_modify_fn)(ucc_lib_config_h, const char *, const char *);
typedef void (*get_version_fn)(unsigned *, unsigned *, unsigned *);
typedef const char *(*get_version_string_fn)(void);
typedef ucc_status_t (*init_version_fn)(unsigned, unsigned, const ucc_lib_params_t *,
                                        const ucc_lib_config_h, ucc_lib_h *);
typedef ucc_status_t (*init_fn)(const ucc_lib_params_t *, const ucc_lib_config_h, ucc_lib_h *);
typedef ucc_status_t (*finalize_fn)(ucc_lib_h);
typedef ucc_status_t (*lib_get_attr_fn)(ucc_lib_h, ucc_lib_attr_t *);
typedef ucc_status_t (*dt_create_generic_fn)(const ucc_generic_dt_ops_t *, void *,
                                             ucc_datatype_t *);
typedef void (*dt_destroy_fn)(ucc_datatype_t);
typedef ucc_status_t (*ctx_config_read_fn)(ucc_lib_h, const char *, ucc_context_config_h *);
typedef void (*ctx_config_release_fn)(ucc_context_config_h);
typedef void (*ctx_config_print_fn)(const ucc_context_config_h, FILE *, const char *,
                                    ucc_config_print_flags_t);
typedef ucc_status_t (*ctx_config_modify_fn)(ucc_context_config_h, const char *, const char *,
                                             const char *);
typedef ucc_status_t (*ctx_create_fn)(ucc_lib_h, const ucc_context_params_t *,
                                      const ucc_context_config_h, ucc_context_h *);
typedef ucc_status_t (*ctx_fn)(ucc_context_h);
typedef ucc_status_t (*ctx_get_attr_fn)(ucc_context_h, ucc_context_attr_t *);
typedef ucc_status_t (*mem_map_fn)(ucc_context_h, ucc_mem_map_mode_t, const ucc_mem_map_params_t *,
                                   size_t *, ucc_mem_map_mem_h *);
typedef ucc_status_t (*mem_unmap_fn)(ucc_mem_map_mem_h *);
typedef ucc_status_t (*team_create_post_fn)(ucc_context_h *, uint32_t, const ucc_team_params_t *,
                                            ucc_team_h *);
typedef ucc_status_t (*team_fn)(ucc_team_h);
typedef ucc_status_t (*team_get_attr_fn)(ucc_team_h, ucc_team_attr_t *);
typedef ucc_status_t (*team_from_parent_fn)(uint64_t, uint32_t, ucc_team_h, ucc_team_h *);
typedef ucc_status_t (*coll_init_fn)(ucc_coll_args_t *, ucc_coll_req_h *, ucc_team_h);
typedef ucc_status_t (*req_fn)(ucc_coll_req_h);
typedef ucc_status_t (*ee_create_fn)(ucc_team_h, const ucc_ee_params_t *, ucc_ee_h *);
typedef ucc_status_t (*ee_destroy_fn)(ucc_ee_h);
typedef ucc_status_t (*ee_get_event_fn)(ucc_ee_h, ucc_ev_t **);
typedef ucc_status_t (*ee_ev_fn)(ucc_ee_h, ucc_ev_t *);
typedef const char *(*status_string_fn)(ucc_status_t);

static void test_signatures(void) {
    CHECK_SIG(ucc_lib_config_read, lib_config_read_fn);
    CHECK_SIG(ucc_lib_config_release, lib_config_release_fn);
    CHECK_SIG(ucc_lib_config_print, lib_config_print_fn);
    CHECK_SIG(ucc_lib_config_modify, lib_config_modify_fn);
    CHECK_SIG(ucc_get_version, get_version_fn);
    CHECK_SIG(ucc_get_version_string, get_version_string_fn);
    CHECK_SIG(ucc_init_version, init_version_fn);
    CHECK_SIG(ucc_init, init_fn);
    CHECK_SIG(ucc_finalize, finalize_fn);
    CHECK_SIG(ucc_lib_get_attr, lib_get_attr_fn);
    CHECK_SIG(ucc_dt_create_generic, dt_create_generic_fn);
    CHECK_SIG(ucc_dt_destroy, dt_destroy_fn);
    CHECK_SIG(ucc_context_config_read, ctx_config_read_fn);
    CHECK_SIG(ucc_context_config_release, ctx_config_release_fn);
    CHECK_SIG(ucc_context_config_print, ctx_config_print_fn);
    CHECK_SIG(ucc_context_config_modify, ctx_config_modify_fn);
    CHECK_SIG(ucc_context_create, ctx_create_fn);
    CHECK_SIG(ucc_context_progress, ctx_fn);
    CHECK_SIG(ucc_context_destroy, ctx_fn);
    CHECK_SIG(ucc_context_get_attr, ctx_get_attr_fn);
    CHECK_SIG(ucc_mem_map, mem_map_fn);
    CHECK_SIG(ucc_mem_unmap, mem_unmap_fn);
    CHECK_SIG(ucc_team_create_post, team_create_post_fn);
    CHECK_SIG(ucc_team_create_test, team_fn);
    CHECK_SIG(ucc_team_destroy, team_fn);
    CHECK_SIG(ucc_team_get_attr, team_get_attr_fn);
    CHECK_SIG(ucc_team_create_from_parent, team_from_parent_fn);
    CHECK_SIG(ucc_collective_init, coll_init_fn);
    CHECK_SIG(ucc_collective_post, req_fn);
    CHECK_SIG(ucc_collective_init_and_post, coll_init_fn);
    CHECK_SIG(ucc_collective_test, req_fn);
    CHECK_SIG(ucc_collective_finalize, req_fn);
    CHECK_SIG(ucc_ee_create, ee_create_fn);
    CHECK_SIG(ucc_ee_destroy, ee_destroy_fn);
    CHECK_SIG(ucc_ee_get_event, ee_get_event_fn);
    CHECK_SIG(ucc_ee_ack_event, ee_ev_fn);
    CHECK_SIG(ucc_ee_set_event, ee_ev_fn);
    CHECK_SIG(ucc_ee_wait, ee_ev_fn);
    CHECK_SIG(ucc_collective_triggered_post, ee_ev_fn);
    CHECK_SIG(ucc_status_string, status_string_fn);
}

static void test_library_calls(void) {
    unsigned major = 99, minor = 99, release = 99;
    const char *vs;
    const char *s_timeout;
    const char *s_ok;
    char expect[64];

    ucc_get_version(&major, &minor, &release);
    CHECK_EQ(major, UCC_API_MAJOR);
    CHECK_EQ(minor, UCC_API_MINOR);
    CHECK(release < 99);

    vs = ucc_get_version_string();
    CHECK(vs != NULL);
    if (vs != NULL) {
        sprintf(expect, "%u.%u.%u", major, minor, release);
        CHECK(strcmp(vs, expect) == 0);
        CHECK(strcmp(vs, UCC_VERSION_STRING) == 0);
    }

    s_timeout = ucc_status_string(UCC_ERR_TIMED_OUT);
    s_ok = ucc_status_string(UCC_OK);
    CHECK(s_timeout != NULL && s_timeout[0] != '\0');
    CHECK(s_ok != NULL && s_ok[0] != '\0');
    if (s_timeout != NULL && s_ok != NULL) {
        CHECK(strcmp(s_timeout, s_ok) != 0);
    }
    CHECK(ucc_status_string(UCC_ERR_IO_ERROR) != NULL);
    CHECK(ucc_status_string((ucc_status_t)-42) != NULL);
}

int main(void) {
    test_status();
    test_def();
    test_version();
    test_datatypes();
    test_coll_types_and_ops();
    test_lib();
    test_context();
    test_team();
    test_coll_args();
    test_events();
    test_inline_test();
    test_signatures();
    test_library_calls();

    if (g_failures != 0) {
        fprintf(stderr, "c99_api_test: %u of %u checks FAILED\n", g_failures, g_checks);
        return 1;
    }
    printf("c99_api_test: %u checks passed\n", g_checks);
    return 0;
}
