// C++ checks of the public UCC headers: names, numeric values, struct layout
// and function signatures must match the reference UCC API so that programs
// written for it compile unchanged. Most checks are compile-time.

#include <gtest/gtest.h>
#include <ucc/api/ucc.h>

namespace {

template <typename A, typename B>
struct SameType {
    static constexpr bool value = false;
};
template <typename A>
struct SameType<A, A> {
    static constexpr bool value = true;
};

#define UCC_EXPECT_SIG(fn, ...) \
    static_assert(SameType<decltype(&fn), __VA_ARGS__>::value, #fn " has the wrong signature")

#define UCC_ORDER(T, a, b) static_assert(offsetof(T, a) < offsetof(T, b), #T ": " #a " before " #b)

// ---- status codes -------------------------------------------------------
static_assert(UCC_OK == 0);
static_assert(UCC_INPROGRESS == 1);
static_assert(UCC_OPERATION_INITIALIZED == 2);
static_assert(UCC_ERR_NOT_SUPPORTED == -1);
static_assert(UCC_ERR_NOT_IMPLEMENTED == -2);
static_assert(UCC_ERR_INVALID_PARAM == -3);
static_assert(UCC_ERR_NO_MEMORY == -4);
static_assert(UCC_ERR_NO_RESOURCE == -5);
static_assert(UCC_ERR_NO_MESSAGE == -6);
static_assert(UCC_ERR_NOT_FOUND == -7);
static_assert(UCC_ERR_TIMED_OUT == -8);
static_assert(UCC_ERR_IO_ERROR == -9);
static_assert(UCC_ERR_LAST == -100);

// ---- ucc_def.h -----------------------------------------------------------
static_assert(UCC_BIT(0) == 1ul && UCC_BIT(12) == 4096ul);
static_assert(SameType<decltype(UCC_BIT(3)), unsigned long>::value);
static_assert(UCC_MASK(3) == 7 && UCC_MASK(16) == 65535);
static_assert(sizeof(ucc_count_t) == 8 && sizeof(ucc_aint_t) == 8);
static_assert(SameType<ucc_count_t, uint64_t>::value);
static_assert(SameType<ucc_aint_t, uint64_t>::value);
static_assert(SameType<ucc_coll_id_t, uint16_t>::value);
static_assert(SameType<ucc_datatype_t, uint64_t>::value);
static_assert(SameType<ucc_context_addr_h, void *>::value);
static_assert(SameType<ucc_context_addr_len_t, size_t>::value);
static_assert(SameType<ucc_p2p_conn_t, void *>::value);
static_assert(SameType<ucc_mem_map_mem_h, void *>::value);
static_assert(SameType<ucc_lib_h, struct ucc_lib_info *>::value);
static_assert(SameType<ucc_context_h, struct ucc_context *>::value);
static_assert(SameType<ucc_team_h, struct ucc_team *>::value);
static_assert(SameType<ucc_coll_req_h, struct ucc_coll_req *>::value);
static_assert(SameType<ucc_coll_req_h, ucc_coll_req_t *>::value);
static_assert(SameType<ucc_mem_h, struct ucc_mem_handle *>::value);
static_assert(SameType<ucc_lib_config_h, struct ucc_lib_config *>::value);
static_assert(SameType<ucc_context_config_h, struct ucc_context_config *>::value);
static_assert(SameType<ucc_ee_h, struct ucc_ee *>::value);
static_assert(SameType<ucc_dt_generic_t, struct ucc_dt_generic>::value);
static_assert(offsetof(ucc_coll_req_t, status) == 0);
static_assert(sizeof(ucc_coll_req_t) == sizeof(ucc_status_t));
static_assert(SameType<decltype(ucc_coll_callback_t::cb), void (*)(void *, ucc_status_t)>::value);
UCC_ORDER(ucc_coll_callback_t, cb, data);
static_assert(UCC_CONFIG_PRINT_CONFIG == 1 && UCC_CONFIG_PRINT_HEADER == 2 &&
              UCC_CONFIG_PRINT_DOC == 4 && UCC_CONFIG_PRINT_HIDDEN == 8);
static_assert(UCC_DATATYPE_PREDEFINED == 0 && UCC_DATATYPE_GENERIC == 1);
static_assert(UCC_DATATYPE_SHIFT == 3 && UCC_DATATYPE_CLASS_MASK == 7);

// ---- version -------------------------------------------------------------
static_assert(UCC_VERSION_MAJOR_SHIFT == 24 && UCC_VERSION_MINOR_SHIFT == 16);
static_assert(UCC_API_MAJOR == 1 && UCC_API_MINOR == 3);
static_assert(UCC_VERSION(1, 3) == ((1 << 24) | (3 << 16)));
static_assert(UCC_API_VERSION == UCC_VERSION(UCC_API_MAJOR, UCC_API_MINOR));
// The version string is the project's one version (CMakeLists.txt project()).
static_assert(sizeof(UCC_VERSION_STRING) == sizeof(UCC_TEST_PROJECT_VERSION));

// ---- datatypes -----------------------------------------------------------
static_assert(UCC_DT_PREDEFINED_LAST == 18);
static_assert(UCC_DT_INT8 == 0 && UCC_DT_INT16 == 8 && UCC_DT_INT32 == 16 && UCC_DT_INT64 == 24);
static_assert(UCC_DT_INT128 == 32 && UCC_DT_UINT8 == 40 && UCC_DT_UINT16 == 48);
static_assert(UCC_DT_UINT32 == 56 && UCC_DT_UINT64 == 64 && UCC_DT_UINT128 == 72);
static_assert(UCC_DT_FLOAT16 == 80 && UCC_DT_FLOAT32 == 88 && UCC_DT_FLOAT64 == 96);
static_assert(UCC_DT_BFLOAT16 == 104 && UCC_DT_FLOAT128 == 112);
static_assert(UCC_DT_FLOAT32_COMPLEX == 120 && UCC_DT_FLOAT64_COMPLEX == 128 &&
              UCC_DT_FLOAT128_COMPLEX == 136);
static_assert(SameType<decltype(UCC_DT_FLOAT32), ucc_datatype_t>::value);
static_assert(UCC_GENERIC_DT_OPS_FIELD_FLAGS == 1);
static_assert(UCC_GENERIC_DT_OPS_FLAG_CONTIG == 1 && UCC_GENERIC_DT_OPS_FLAG_REDUCE == 2);
UCC_ORDER(ucc_reduce_cb_params_t, mask, src1);
UCC_ORDER(ucc_reduce_cb_params_t, src1, src2);
UCC_ORDER(ucc_reduce_cb_params_t, src2, dst);
UCC_ORDER(ucc_reduce_cb_params_t, dst, n_vectors);
UCC_ORDER(ucc_reduce_cb_params_t, n_vectors, count);
UCC_ORDER(ucc_reduce_cb_params_t, count, stride);
UCC_ORDER(ucc_reduce_cb_params_t, stride, dt);
UCC_ORDER(ucc_reduce_cb_params_t, dt, cb_ctx);
static_assert(SameType<decltype(ucc_reduce_cb_params_t::dt), ucc_dt_generic_t *>::value);
UCC_ORDER(ucc_generic_dt_ops_t, mask, flags);
UCC_ORDER(ucc_generic_dt_ops_t, flags, contig_size);
UCC_ORDER(ucc_generic_dt_ops_t, contig_size, start_pack);
UCC_ORDER(ucc_generic_dt_ops_t, start_pack, start_unpack);
UCC_ORDER(ucc_generic_dt_ops_t, start_unpack, packed_size);
UCC_ORDER(ucc_generic_dt_ops_t, packed_size, pack);
UCC_ORDER(ucc_generic_dt_ops_t, pack, unpack);
UCC_ORDER(ucc_generic_dt_ops_t, unpack, finish);
UCC_ORDER(ucc_generic_dt_ops_t, finish, reduce);
static_assert(SameType<decltype(ucc_generic_dt_ops_t::start_pack),
                       void *(*)(void *, const void *, size_t)>::value);
static_assert(SameType<decltype(ucc_generic_dt_ops_t::start_unpack),
                       void *(*)(void *, void *, size_t)>::value);
static_assert(SameType<decltype(ucc_generic_dt_ops_t::packed_size), size_t (*)(void *)>::value);
static_assert(SameType<decltype(ucc_generic_dt_ops_t::pack),
                       size_t (*)(void *, size_t, void *, size_t)>::value);
static_assert(SameType<decltype(ucc_generic_dt_ops_t::unpack),
                       ucc_status_t (*)(void *, size_t, const void *, size_t)>::value);
static_assert(SameType<decltype(ucc_generic_dt_ops_t::finish), void (*)(void *)>::value);

// ---- collective types, ops, modes ----------------------------------------
static_assert(UCC_COLL_TYPE_ALLGATHER == UCC_BIT(0) && UCC_COLL_TYPE_ALLGATHERV == UCC_BIT(1));
static_assert(UCC_COLL_TYPE_ALLREDUCE == UCC_BIT(2) && UCC_COLL_TYPE_ALLTOALL == UCC_BIT(3));
static_assert(UCC_COLL_TYPE_ALLTOALLV == UCC_BIT(4) && UCC_COLL_TYPE_BARRIER == UCC_BIT(5));
static_assert(UCC_COLL_TYPE_BCAST == UCC_BIT(6) && UCC_COLL_TYPE_FANIN == UCC_BIT(7));
static_assert(UCC_COLL_TYPE_FANOUT == UCC_BIT(8) && UCC_COLL_TYPE_GATHER == UCC_BIT(9));
static_assert(UCC_COLL_TYPE_GATHERV == UCC_BIT(10) && UCC_COLL_TYPE_REDUCE == UCC_BIT(11));
static_assert(UCC_COLL_TYPE_REDUCE_SCATTER == UCC_BIT(12));
static_assert(UCC_COLL_TYPE_REDUCE_SCATTERV == UCC_BIT(13));
static_assert(UCC_COLL_TYPE_SCATTER == UCC_BIT(14) && UCC_COLL_TYPE_SCATTERV == UCC_BIT(15));
static_assert(UCC_COLL_TYPE_LAST == 32769);
static_assert(UCC_OP_SUM == 0 && UCC_OP_PROD == 1 && UCC_OP_MAX == 2 && UCC_OP_MIN == 3);
static_assert(UCC_OP_LAND == 4 && UCC_OP_LOR == 5 && UCC_OP_LXOR == 6);
static_assert(UCC_OP_BAND == 7 && UCC_OP_BOR == 8 && UCC_OP_BXOR == 9);
static_assert(UCC_OP_MAXLOC == 10 && UCC_OP_MINLOC == 11 && UCC_OP_AVG == 12);
static_assert(UCC_OP_LAST == 13);
static_assert(UCC_THREAD_SINGLE == 0 && UCC_THREAD_FUNNELED == 1 && UCC_THREAD_MULTIPLE == 2);
static_assert(UCC_NO_SYNC_COLLECTIVES == 0 && UCC_SYNC_COLLECTIVES == 1);
static_assert(UCC_MEMORY_TYPE_HOST == 0 && UCC_MEMORY_TYPE_CUDA == 1 &&
              UCC_MEMORY_TYPE_CUDA_MANAGED == 2 && UCC_MEMORY_TYPE_ROCM == 3 &&
              UCC_MEMORY_TYPE_ROCM_MANAGED == 4 && UCC_MEMORY_TYPE_LAST == 5 &&
              UCC_MEMORY_TYPE_UNKNOWN == 5);
static_assert(SameType<ucc_memory_type_t, enum ucc_memory_type>::value);

// ---- library -------------------------------------------------------------
static_assert(UCC_LIB_PARAM_FIELD_THREAD_MODE == 1 && UCC_LIB_PARAM_FIELD_COLL_TYPES == 2 &&
              UCC_LIB_PARAM_FIELD_REDUCTION_TYPES == 4 && UCC_LIB_PARAM_FIELD_SYNC_TYPE == 8);
static_assert(UCC_LIB_ATTR_FIELD_THREAD_MODE == 1 && UCC_LIB_ATTR_FIELD_COLL_TYPES == 2 &&
              UCC_LIB_ATTR_FIELD_REDUCTION_TYPES == 4 && UCC_LIB_ATTR_FIELD_SYNC_TYPE == 8);
static_assert(SameType<ucc_lib_params_t, struct ucc_lib_params>::value);
static_assert(SameType<ucc_lib_attr_t, struct ucc_lib_attr>::value);
UCC_ORDER(ucc_lib_params_t, mask, thread_mode);
UCC_ORDER(ucc_lib_params_t, thread_mode, coll_types);
UCC_ORDER(ucc_lib_params_t, coll_types, reduction_types);
UCC_ORDER(ucc_lib_params_t, reduction_types, sync_type);
static_assert(sizeof(ucc_lib_params_t) == sizeof(ucc_lib_attr_t));

// ---- context -------------------------------------------------------------
static_assert(UCC_CONTEXT_EXCLUSIVE == 0 && UCC_CONTEXT_SHARED == 1);
static_assert(UCC_CONTEXT_PARAM_FIELD_TYPE == 1 && UCC_CONTEXT_PARAM_FIELD_SYNC_TYPE == 2 &&
              UCC_CONTEXT_PARAM_FIELD_OOB == 4 && UCC_CONTEXT_PARAM_FIELD_ID == 8 &&
              UCC_CONTEXT_PARAM_FIELD_MEM_PARAMS == 16);
static_assert(UCC_CONTEXT_ATTR_FIELD_TYPE == 1 && UCC_CONTEXT_ATTR_FIELD_SYNC_TYPE == 2 &&
              UCC_CONTEXT_ATTR_FIELD_CTX_ADDR == 4 && UCC_CONTEXT_ATTR_FIELD_CTX_ADDR_LEN == 8 &&
              UCC_CONTEXT_ATTR_FIELD_WORK_BUFFER_SIZE == 16);
static_assert(UCC_MEM_MAP_MODE_EXPORT == 0 && UCC_MEM_MAP_MODE_IMPORT == 1 &&
              UCC_MEM_MAP_MODE_EXPORT_OFFLOAD == 2 && UCC_MEM_MAP_MODE_IMPORT_OFFLOAD == 3 &&
              UCC_MEM_MAP_MODE_LAST == 4);
static_assert(SameType<ucc_context_oob_coll_t, ucc_oob_coll_t>::value);
static_assert(SameType<ucc_team_oob_coll_t, struct ucc_oob_coll>::value);
static_assert(SameType<decltype(ucc_oob_coll_t::allgather),
                       ucc_status_t (*)(void *, void *, size_t, void *, void **)>::value);
static_assert(SameType<decltype(ucc_oob_coll_t::req_test), ucc_status_t (*)(void *)>::value);
static_assert(SameType<decltype(ucc_oob_coll_t::n_oob_eps), uint32_t>::value);
static_assert(SameType<decltype(ucc_oob_coll_t::oob_ep), uint32_t>::value);
UCC_ORDER(ucc_oob_coll_t, allgather, req_test);
UCC_ORDER(ucc_oob_coll_t, req_test, req_free);
UCC_ORDER(ucc_oob_coll_t, req_free, coll_info);
UCC_ORDER(ucc_oob_coll_t, coll_info, n_oob_eps);
UCC_ORDER(ucc_oob_coll_t, n_oob_eps, oob_ep);
UCC_ORDER(ucc_mem_map_t, address, len);
UCC_ORDER(ucc_mem_map_params_t, segments, n_segments);
static_assert(SameType<decltype(ucc_mem_map_params_t::n_segments), uint64_t>::value);
UCC_ORDER(ucc_context_params_t, mask, type);
UCC_ORDER(ucc_context_params_t, type, sync_type);
UCC_ORDER(ucc_context_params_t, sync_type, oob);
UCC_ORDER(ucc_context_params_t, oob, ctx_id);
UCC_ORDER(ucc_context_params_t, ctx_id, mem_params);
UCC_ORDER(ucc_context_attr_t, mask, type);
UCC_ORDER(ucc_context_attr_t, type, sync_type);
UCC_ORDER(ucc_context_attr_t, sync_type, ctx_addr);
UCC_ORDER(ucc_context_attr_t, ctx_addr, ctx_addr_len);
UCC_ORDER(ucc_context_attr_t, ctx_addr_len, global_work_buffer_size);

// ---- team ----------------------------------------------------------------
static_assert(UCC_TEAM_PARAM_FIELD_ORDERING == UCC_BIT(0));
static_assert(UCC_TEAM_PARAM_FIELD_OUTSTANDING_COLLS == UCC_BIT(1));
static_assert(UCC_TEAM_PARAM_FIELD_EP == UCC_BIT(2));
static_assert(UCC_TEAM_PARAM_FIELD_EP_LIST == UCC_BIT(3));
static_assert(UCC_TEAM_PARAM_FIELD_EP_RANGE == UCC_BIT(4));
static_assert(UCC_TEAM_PARAM_FIELD_TEAM_SIZE == UCC_BIT(5));
static_assert(UCC_TEAM_PARAM_FIELD_SYNC_TYPE == UCC_BIT(6));
static_assert(UCC_TEAM_PARAM_FIELD_OOB == UCC_BIT(7));
static_assert(UCC_TEAM_PARAM_FIELD_P2P_CONN == UCC_BIT(8));
static_assert(UCC_TEAM_PARAM_FIELD_MEM_PARAMS == UCC_BIT(9));
static_assert(UCC_TEAM_PARAM_FIELD_EP_MAP == UCC_BIT(10));
static_assert(UCC_TEAM_PARAM_FIELD_ID == UCC_BIT(11));
static_assert(UCC_TEAM_PARAM_FIELD_FLAGS == UCC_BIT(12));
static_assert(UCC_TEAM_ATTR_FIELD_POST_ORDERING == UCC_BIT(0));
static_assert(UCC_TEAM_ATTR_FIELD_OUTSTANDING_CALLS == UCC_BIT(1));
static_assert(UCC_TEAM_ATTR_FIELD_EP == UCC_BIT(2));
static_assert(UCC_TEAM_ATTR_FIELD_EP_RANGE == UCC_BIT(3));
static_assert(UCC_TEAM_ATTR_FIELD_SYNC_TYPE == UCC_BIT(4));
static_assert(UCC_TEAM_ATTR_FIELD_MEM_PARAMS == UCC_BIT(5));
static_assert(UCC_TEAM_ATTR_FIELD_SIZE == UCC_BIT(6));
static_assert(UCC_TEAM_ATTR_FIELD_EPS == UCC_BIT(7));
static_assert(UCC_TEAM_FLAG_COLL_WORK_BUFFER == 1);
static_assert(UCC_COLLECTIVE_POST_ORDERED == 0 && UCC_COLLECTIVE_POST_UNORDERED == 1 &&
              UCC_COLLECTIVE_INIT_ORDERED == 2 && UCC_COLLECTIVE_INIT_UNORDERED == 3 &&
              UCC_COLLECTIVE_INIT_AND_POST_ORDERED == 4 &&
              UCC_COLLECTIVE_INIT_AND_POST_UNORDERED == 5);
static_assert(UCC_COLLECTIVE_EP_RANGE_CONTIG == 0 && UCC_COLLECTIVE_EP_RANGE_NONCONTIG == 1);
static_assert(UCC_EP_MAP_FULL == 1 && UCC_EP_MAP_STRIDED == 2 && UCC_EP_MAP_ARRAY == 3 &&
              UCC_EP_MAP_CB == 4);
static_assert(SameType<decltype(ucc_ep_map_strided::stride), int64_t>::value);
static_assert(SameType<decltype(ucc_ep_map_cb::cb), uint64_t (*)(uint64_t, void *)>::value);
static_assert(SameType<ucc_ep_map_t, struct ucc_ep_map_t>::value);
UCC_ORDER(ucc_ep_map_t, type, ep_num);
UCC_ORDER(ucc_ep_map_t, ep_num, strided);
static_assert(offsetof(ucc_ep_map_t, strided) == offsetof(ucc_ep_map_t, array));
static_assert(offsetof(ucc_ep_map_t, strided) == offsetof(ucc_ep_map_t, cb));
static_assert(SameType<decltype(ucc_team_p2p_conn_t::conn_info_lookup),
                       int (*)(void *, uint64_t, ucc_p2p_conn_t **, void *)>::value);
static_assert(
    SameType<decltype(ucc_team_p2p_conn_t::conn_info_release), int (*)(ucc_p2p_conn_t *)>::value);
UCC_ORDER(ucc_team_p2p_conn_t, conn_info_lookup, conn_info_release);
UCC_ORDER(ucc_team_p2p_conn_t, conn_info_release, conn_ctx);
UCC_ORDER(ucc_team_p2p_conn_t, conn_ctx, req_test);
UCC_ORDER(ucc_team_p2p_conn_t, req_test, req_free);
UCC_ORDER(ucc_team_params_t, mask, flags);
UCC_ORDER(ucc_team_params_t, flags, ordering);
UCC_ORDER(ucc_team_params_t, ordering, outstanding_colls);
UCC_ORDER(ucc_team_params_t, outstanding_colls, ep);
UCC_ORDER(ucc_team_params_t, ep, ep_list);
UCC_ORDER(ucc_team_params_t, ep_list, ep_range);
UCC_ORDER(ucc_team_params_t, ep_range, team_size);
UCC_ORDER(ucc_team_params_t, team_size, sync_type);
UCC_ORDER(ucc_team_params_t, sync_type, oob);
UCC_ORDER(ucc_team_params_t, oob, p2p_conn);
UCC_ORDER(ucc_team_params_t, p2p_conn, mem_params);
UCC_ORDER(ucc_team_params_t, mem_params, ep_map);
UCC_ORDER(ucc_team_params_t, ep_map, id);
UCC_ORDER(ucc_team_attr_t, mask, ordering);
UCC_ORDER(ucc_team_attr_t, ordering, outstanding_colls);
UCC_ORDER(ucc_team_attr_t, outstanding_colls, ep);
UCC_ORDER(ucc_team_attr_t, ep, ep_range);
UCC_ORDER(ucc_team_attr_t, ep_range, sync_type);
UCC_ORDER(ucc_team_attr_t, sync_type, mem_params);
UCC_ORDER(ucc_team_attr_t, mem_params, size);
UCC_ORDER(ucc_team_attr_t, size, eps);
static_assert(SameType<decltype(ucc_team_attr_t::size), uint32_t>::value);
static_assert(SameType<decltype(ucc_team_attr_t::eps), uint64_t *>::value);

// ---- collective args -----------------------------------------------------
static_assert(UCC_COLL_ARGS_FLAG_IN_PLACE == UCC_BIT(0));
static_assert(UCC_COLL_ARGS_FLAG_PERSISTENT == UCC_BIT(1));
static_assert(UCC_COLL_ARGS_FLAG_COUNT_64BIT == UCC_BIT(2));
static_assert(UCC_COLL_ARGS_FLAG_DISPLACEMENTS_64BIT == UCC_BIT(3));
static_assert(UCC_COLL_ARGS_FLAG_CONTIG_SRC_BUFFER == UCC_BIT(4));
static_assert(UCC_COLL_ARGS_FLAG_CONTIG_DST_BUFFER == UCC_BIT(5));
static_assert(UCC_COLL_ARGS_FLAG_TIMEOUT == UCC_BIT(6));
static_assert(UCC_COLL_ARGS_FLAG_MEM_MAPPED_BUFFERS == UCC_BIT(7));
static_assert(UCC_COLL_ARGS_FLAG_SRC_MEMH_GLOBAL == UCC_BIT(8));
static_assert(UCC_COLL_ARGS_FLAG_DST_MEMH_GLOBAL == UCC_BIT(9));
static_assert(UCC_COLL_ARGS_HINT_OPTMIZE_OVERLAP_CPU == UCC_BIT(24));
static_assert(UCC_COLL_ARGS_HINT_OPTMIZE_OVERLAP_GPU == UCC_BIT(25));
static_assert(UCC_COLL_ARGS_HINT_OPTIMIZE_OVERLAP_CPU == UCC_BIT(24));
static_assert(UCC_COLL_ARGS_HINT_OPTIMIZE_OVERLAP_GPU == UCC_BIT(25));
static_assert(UCC_COLL_ARGS_HINT_OPTIMIZE_LATENCY == UCC_BIT(26));
static_assert(UCC_COLL_ARGS_HINT_CONTIG_SRC_BUFFER == UCC_BIT(4));
static_assert(UCC_COLL_ARGS_HINT_CONTIG_DST_BUFFER == UCC_BIT(5));
static_assert(UCC_ERR_TYPE_LOCAL == 0 && UCC_ERR_TYPE_GLOBAL == 1);
static_assert(UCC_COLL_ARGS_FIELD_FLAGS == UCC_BIT(0));
static_assert(UCC_COLL_ARGS_FIELD_TAG == UCC_BIT(1));
static_assert(UCC_COLL_ARGS_FIELD_CB == UCC_BIT(2));
static_assert(UCC_COLL_ARGS_FIELD_GLOBAL_WORK_BUFFER == UCC_BIT(3));
static_assert(UCC_COLL_ARGS_FIELD_ACTIVE_SET == UCC_BIT(4));
static_assert(UCC_COLL_ARGS_FIELD_MEM_MAP_SRC_MEMH == UCC_BIT(5));
static_assert(UCC_COLL_ARGS_FIELD_MEM_MAP_DST_MEMH == UCC_BIT(6));
UCC_ORDER(ucc_coll_buffer_info_t, buffer, count);
UCC_ORDER(ucc_coll_buffer_info_t, count, datatype);
UCC_ORDER(ucc_coll_buffer_info_t, datatype, mem_type);
UCC_ORDER(ucc_coll_buffer_info_v_t, buffer, counts);
UCC_ORDER(ucc_coll_buffer_info_v_t, counts, displacements);
UCC_ORDER(ucc_coll_buffer_info_v_t, displacements, datatype);
UCC_ORDER(ucc_coll_buffer_info_v_t, datatype, mem_type);
static_assert(SameType<decltype(ucc_coll_buffer_info_v_t::counts), ucc_count_t *>::value);
static_assert(SameType<decltype(ucc_coll_buffer_info_v_t::displacements), ucc_aint_t *>::value);
UCC_ORDER(ucc_coll_args_t, mask, coll_type);
UCC_ORDER(ucc_coll_args_t, coll_type, src);
UCC_ORDER(ucc_coll_args_t, src, dst);
UCC_ORDER(ucc_coll_args_t, dst, op);
UCC_ORDER(ucc_coll_args_t, op, flags);
UCC_ORDER(ucc_coll_args_t, flags, root);
UCC_ORDER(ucc_coll_args_t, root, error_type);
UCC_ORDER(ucc_coll_args_t, error_type, tag);
UCC_ORDER(ucc_coll_args_t, tag, global_work_buffer);
UCC_ORDER(ucc_coll_args_t, global_work_buffer, cb);
UCC_ORDER(ucc_coll_args_t, cb, timeout);
UCC_ORDER(ucc_coll_args_t, timeout, active_set);
UCC_ORDER(ucc_coll_args_t, active_set, src_memh);
UCC_ORDER(ucc_coll_args_t, src_memh, dst_memh);
static_assert(SameType<decltype(ucc_coll_args_t::coll_type), ucc_coll_type_t>::value);
static_assert(SameType<decltype(ucc_coll_args_t::op), ucc_reduction_op_t>::value);
static_assert(SameType<decltype(ucc_coll_args_t::tag), ucc_coll_id_t>::value);
static_assert(SameType<decltype(ucc_coll_args_t::timeout), double>::value);
static_assert(SameType<decltype(ucc_coll_args_t::cb), ucc_coll_callback_t>::value);
static_assert(SameType<decltype(ucc_coll_args_t::src_memh.local_memh), ucc_mem_map_mem_h>::value);
static_assert(
    SameType<decltype(ucc_coll_args_t::dst_memh.global_memh), ucc_mem_map_mem_h *>::value);
static_assert(sizeof(ucc_coll_args_t::active_set) == 3 * sizeof(uint64_t));
static_assert(offsetof(ucc_coll_args_t, src_memh) ==
              offsetof(ucc_coll_args_t, active_set) + 3 * sizeof(uint64_t));
#if UINTPTR_MAX == 0xffffffffffffffffull
static_assert(offsetof(ucc_coll_args_t, op) == 96);
static_assert(offsetof(ucc_coll_args_t, tag) == 124);
static_assert(offsetof(ucc_coll_args_t, active_set) == 160);
static_assert(offsetof(ucc_coll_args_t, src_memh) == 184);
static_assert(offsetof(ucc_coll_args_t, dst_memh) == 192);
static_assert(sizeof(ucc_coll_args_t) == 200);
#endif

// ---- events --------------------------------------------------------------
static_assert(UCC_EVENT_COLLECTIVE_POST == 1 && UCC_EVENT_COLLECTIVE_COMPLETE == 2 &&
              UCC_EVENT_COMPUTE_COMPLETE == 4 && UCC_EVENT_OVERFLOW == 8);
static_assert(UCC_EE_FIRST == 0 && UCC_EE_CUDA_STREAM == 0 && UCC_EE_CPU_THREAD == 1 &&
              UCC_EE_ROCM_STREAM == 2 && UCC_EE_LAST == 3 && UCC_EE_UNKNOWN == 3);
static_assert(SameType<ucc_event_type_t, enum ucc_event_type>::value);
static_assert(SameType<ucc_ee_type_t, enum ucc_ee_type>::value);
static_assert(SameType<ucc_ev_t, struct ucc_event>::value);
static_assert(SameType<ucc_ee_params_t, struct ucc_ee_params>::value);
UCC_ORDER(ucc_ev_t, ev_type, ev_context);
UCC_ORDER(ucc_ev_t, ev_context, ev_context_size);
UCC_ORDER(ucc_ev_t, ev_context_size, req);
UCC_ORDER(ucc_ee_params_t, ee_type, ee_context);
UCC_ORDER(ucc_ee_params_t, ee_context, ee_context_size);

// ---- function signatures (unevaluated: no link dependency) ---------------
UCC_EXPECT_SIG(ucc_lib_config_read,
               ucc_status_t (*)(const char *, const char *, ucc_lib_config_h *));
UCC_EXPECT_SIG(ucc_lib_config_release, void (*)(ucc_lib_config_h));
UCC_EXPECT_SIG(ucc_lib_config_print,
               void (*)(const ucc_lib_config_h, FILE *, const char *, ucc_config_print_flags_t));
UCC_EXPECT_SIG(ucc_lib_config_modify,
               ucc_status_t (*)(ucc_lib_config_h, const char *, const char *));
UCC_EXPECT_SIG(ucc_get_version, void (*)(unsigned *, unsigned *, unsigned *));
UCC_EXPECT_SIG(ucc_get_version_string, const char *(*)(void));
UCC_EXPECT_SIG(ucc_init_version, ucc_status_t (*)(unsigned, unsigned, const ucc_lib_params_t *,
                                                  const ucc_lib_config_h, ucc_lib_h *));
UCC_EXPECT_SIG(ucc_init,
               ucc_status_t (*)(const ucc_lib_params_t *, const ucc_lib_config_h, ucc_lib_h *));
UCC_EXPECT_SIG(ucc_finalize, ucc_status_t (*)(ucc_lib_h));
UCC_EXPECT_SIG(ucc_lib_get_attr, ucc_status_t (*)(ucc_lib_h, ucc_lib_attr_t *));
UCC_EXPECT_SIG(ucc_dt_create_generic,
               ucc_status_t (*)(const ucc_generic_dt_ops_t *, void *, ucc_datatype_t *));
UCC_EXPECT_SIG(ucc_dt_destroy, void (*)(ucc_datatype_t));
UCC_EXPECT_SIG(ucc_context_config_read,
               ucc_status_t (*)(ucc_lib_h, const char *, ucc_context_config_h *));
UCC_EXPECT_SIG(ucc_context_config_release, void (*)(ucc_context_config_h));
UCC_EXPECT_SIG(ucc_context_config_print, void (*)(const ucc_context_config_h, FILE *, const char *,
                                                  ucc_config_print_flags_t));
UCC_EXPECT_SIG(ucc_context_config_modify,
               ucc_status_t (*)(ucc_context_config_h, const char *, const char *, const char *));
UCC_EXPECT_SIG(ucc_context_create, ucc_status_t (*)(ucc_lib_h, const ucc_context_params_t *,
                                                    const ucc_context_config_h, ucc_context_h *));
UCC_EXPECT_SIG(ucc_context_progress, ucc_status_t (*)(ucc_context_h));
UCC_EXPECT_SIG(ucc_context_destroy, ucc_status_t (*)(ucc_context_h));
UCC_EXPECT_SIG(ucc_context_get_attr, ucc_status_t (*)(ucc_context_h, ucc_context_attr_t *));
UCC_EXPECT_SIG(ucc_mem_map,
               ucc_status_t (*)(ucc_context_h, ucc_mem_map_mode_t, const ucc_mem_map_params_t *,
                                size_t *, ucc_mem_map_mem_h *));
UCC_EXPECT_SIG(ucc_mem_unmap, ucc_status_t (*)(ucc_mem_map_mem_h *));
UCC_EXPECT_SIG(ucc_team_create_post, ucc_status_t (*)(ucc_context_h *, uint32_t,
                                                      const ucc_team_params_t *, ucc_team_h *));
UCC_EXPECT_SIG(ucc_team_create_test, ucc_status_t (*)(ucc_team_h));
UCC_EXPECT_SIG(ucc_team_destroy, ucc_status_t (*)(ucc_team_h));
UCC_EXPECT_SIG(ucc_team_get_attr, ucc_status_t (*)(ucc_team_h, ucc_team_attr_t *));
UCC_EXPECT_SIG(ucc_team_create_from_parent,
               ucc_status_t (*)(uint64_t, uint32_t, ucc_team_h, ucc_team_h *));
UCC_EXPECT_SIG(ucc_collective_init,
               ucc_status_t (*)(ucc_coll_args_t *, ucc_coll_req_h *, ucc_team_h));
UCC_EXPECT_SIG(ucc_collective_post, ucc_status_t (*)(ucc_coll_req_h));
UCC_EXPECT_SIG(ucc_collective_init_and_post,
               ucc_status_t (*)(ucc_coll_args_t *, ucc_coll_req_h *, ucc_team_h));
UCC_EXPECT_SIG(ucc_collective_test, ucc_status_t (*)(ucc_coll_req_h));
UCC_EXPECT_SIG(ucc_collective_finalize, ucc_status_t (*)(ucc_coll_req_h));
UCC_EXPECT_SIG(ucc_ee_create, ucc_status_t (*)(ucc_team_h, const ucc_ee_params_t *, ucc_ee_h *));
UCC_EXPECT_SIG(ucc_ee_destroy, ucc_status_t (*)(ucc_ee_h));
UCC_EXPECT_SIG(ucc_ee_get_event, ucc_status_t (*)(ucc_ee_h, ucc_ev_t **));
UCC_EXPECT_SIG(ucc_ee_ack_event, ucc_status_t (*)(ucc_ee_h, ucc_ev_t *));
UCC_EXPECT_SIG(ucc_ee_set_event, ucc_status_t (*)(ucc_ee_h, ucc_ev_t *));
UCC_EXPECT_SIG(ucc_ee_wait, ucc_status_t (*)(ucc_ee_h, ucc_ev_t *));
UCC_EXPECT_SIG(ucc_collective_triggered_post, ucc_status_t (*)(ucc_ee_h, ucc_ev_t *));
UCC_EXPECT_SIG(ucc_status_string, const char *(*)(ucc_status_t));

uint64_t DoubleEp(uint64_t ep, void *) {
    return 2 * ep;
}

}  // namespace

TEST(ApiHeader, StatusCodesAreOrdered) {
    const ucc_status_t errors[] = {
        UCC_ERR_NOT_SUPPORTED, UCC_ERR_NOT_IMPLEMENTED, UCC_ERR_INVALID_PARAM,
        UCC_ERR_NO_MEMORY,     UCC_ERR_NO_RESOURCE,     UCC_ERR_NO_MESSAGE,
        UCC_ERR_NOT_FOUND,     UCC_ERR_TIMED_OUT,       UCC_ERR_IO_ERROR};
    int expected = -1;
    for (ucc_status_t s : errors) {
        EXPECT_EQ(static_cast<int>(s), expected--);
        EXPECT_LT(s, 0);
        EXPECT_GT(s, UCC_ERR_LAST);
    }
    EXPECT_GE(UCC_OK, 0);
    EXPECT_GE(UCC_INPROGRESS, 0);
    EXPECT_GE(UCC_OPERATION_INITIALIZED, 0);
    // This library's extension sits clear of the reference's codes.
    EXPECT_LT(UCC_ERR_CANCELED, UCC_ERR_IO_ERROR - 10);
    EXPECT_GT(UCC_ERR_CANCELED, UCC_ERR_LAST);
    EXPECT_STRNE(ucc_status_string(UCC_ERR_CANCELED), ucc_status_string(UCC_ERR_LAST));
}

TEST(ApiHeader, PredefinedDatatypesAreIdShifted) {
    const ucc_datatype_t all[] = {UCC_DT_INT8,
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
    static_assert(sizeof(all) / sizeof(all[0]) == UCC_DT_PREDEFINED_LAST);
    for (uint64_t i = 0; i < UCC_DT_PREDEFINED_LAST; ++i) {
        EXPECT_EQ(all[i], i << UCC_DATATYPE_SHIFT);
        EXPECT_EQ(all[i] & UCC_DATATYPE_CLASS_MASK, uint64_t{UCC_DATATYPE_PREDEFINED});
        EXPECT_EQ(all[i], UCC_PREDEFINED_DT(i));
    }
}

TEST(ApiHeader, CollTypesAreDistinctBits) {
    uint64_t all = 0;
    for (int i = 0; i < 16; ++i) {
        all |= UCC_BIT(i);
    }
    const uint64_t or_of_types =
        UCC_COLL_TYPE_ALLGATHER | UCC_COLL_TYPE_ALLGATHERV | UCC_COLL_TYPE_ALLREDUCE |
        UCC_COLL_TYPE_ALLTOALL | UCC_COLL_TYPE_ALLTOALLV | UCC_COLL_TYPE_BARRIER |
        UCC_COLL_TYPE_BCAST | UCC_COLL_TYPE_FANIN | UCC_COLL_TYPE_FANOUT | UCC_COLL_TYPE_GATHER |
        UCC_COLL_TYPE_GATHERV | UCC_COLL_TYPE_REDUCE | UCC_COLL_TYPE_REDUCE_SCATTER |
        UCC_COLL_TYPE_REDUCE_SCATTERV | UCC_COLL_TYPE_SCATTER | UCC_COLL_TYPE_SCATTERV;
    EXPECT_EQ(or_of_types, all);
    EXPECT_EQ(all, UCC_MASK(16));
}

TEST(ApiHeader, InlineCollectiveTestReadsStatus) {
    ucc_coll_req_t req{UCC_OPERATION_INITIALIZED};
    EXPECT_EQ(ucc_collective_test(&req), UCC_OPERATION_INITIALIZED);
    req.status = UCC_INPROGRESS;
    EXPECT_EQ(ucc_collective_test(&req), UCC_INPROGRESS);
    req.status = UCC_ERR_TIMED_OUT;
    EXPECT_EQ(ucc_collective_test(&req), UCC_ERR_TIMED_OUT);
    req.status = UCC_OK;
    EXPECT_EQ(ucc_collective_test(&req), UCC_OK);
}

TEST(ApiHeader, EpMapAnonymousUnion) {
    ucc_ep_map_t m{};
    m.type = UCC_EP_MAP_STRIDED;
    m.ep_num = 4;
    m.strided.start = 7;
    m.strided.stride = -2;
    EXPECT_EQ(static_cast<int64_t>(m.strided.start) + 3 * m.strided.stride, 1);

    uint64_t arr[3] = {5, 6, 7};
    m.type = UCC_EP_MAP_ARRAY;
    m.array.map = arr;
    m.array.elem_size = sizeof(uint64_t);
    EXPECT_EQ(static_cast<uint64_t *>(m.array.map)[2], 7u);

    m.type = UCC_EP_MAP_CB;
    m.cb.cb = DoubleEp;
    m.cb.cb_ctx = nullptr;
    EXPECT_EQ(m.cb.cb(21, m.cb.cb_ctx), 42u);
}

TEST(ApiHeader, CollArgsDesignatedInitInDeclarationOrder) {
    // C++20 designated initialisers must follow declaration order, so this
    // only compiles if the field order matches the reference header.
    float sbuf[4] = {1, 2, 3, 4};
    float rbuf[4] = {};
    ucc_mem_map_mem_h handles[2] = {nullptr, nullptr};
    ucc_coll_args_t args = {
        .mask = UCC_COLL_ARGS_FIELD_FLAGS | UCC_COLL_ARGS_FIELD_TAG |
                UCC_COLL_ARGS_FIELD_MEM_MAP_DST_MEMH,
        .coll_type = UCC_COLL_TYPE_ALLREDUCE,
        .src = {.info = {.buffer = sbuf,
                         .count = 4,
                         .datatype = UCC_DT_FLOAT32,
                         .mem_type = UCC_MEMORY_TYPE_HOST}},
        .dst = {.info = {.buffer = rbuf,
                         .count = 4,
                         .datatype = UCC_DT_FLOAT32,
                         .mem_type = UCC_MEMORY_TYPE_HOST}},
        .op = UCC_OP_SUM,
        .flags = UCC_COLL_ARGS_FLAG_PERSISTENT | UCC_COLL_ARGS_FLAG_DST_MEMH_GLOBAL,
        .root = 0,
        .error_type = UCC_ERR_TYPE_LOCAL,
        .tag = 7,
        .global_work_buffer = nullptr,
        .cb = {.cb = nullptr, .data = nullptr},
        .timeout = 1.5,
        .active_set = {.start = 0, .stride = 1, .size = 2},
        .src_memh = {.local_memh = nullptr},
        .dst_memh = {.global_memh = handles},
    };
    EXPECT_EQ(args.src.info.buffer, static_cast<void *>(sbuf));
    EXPECT_EQ(args.dst.info.count, 4u);
    EXPECT_EQ(args.flags, UCC_BIT(1) | UCC_BIT(9));
    EXPECT_EQ(args.tag, 7);
    EXPECT_EQ(args.active_set.size, 2u);
    EXPECT_EQ(args.dst_memh.global_memh, handles);

    ucc_team_params_t tp = {.mask = UCC_TEAM_PARAM_FIELD_EP | UCC_TEAM_PARAM_FIELD_EP_RANGE,
                            .flags = 0,
                            .ordering = UCC_COLLECTIVE_POST_ORDERED,
                            .outstanding_colls = 0,
                            .ep = 3,
                            .ep_list = nullptr,
                            .ep_range = UCC_COLLECTIVE_EP_RANGE_CONTIG,
                            .team_size = 4,
                            .sync_type = UCC_NO_SYNC_COLLECTIVES,
                            .oob = {},
                            .p2p_conn = {},
                            .mem_params = {},
                            .ep_map = {},
                            .id = 0};
    EXPECT_EQ(tp.ep, 3u);
    EXPECT_EQ(tp.ep_map.type, 0);

    ucc_lib_params_t lp = {.mask = UCC_LIB_PARAM_FIELD_THREAD_MODE,
                           .thread_mode = UCC_THREAD_MULTIPLE,
                           .coll_types = UCC_COLL_TYPE_BCAST,
                           .reduction_types = 0,
                           .sync_type = UCC_NO_SYNC_COLLECTIVES};
    EXPECT_EQ(lp.thread_mode, UCC_THREAD_MULTIPLE);

    ucc_ev_t ev = {.ev_type = UCC_EVENT_COMPUTE_COMPLETE,
                   .ev_context = nullptr,
                   .ev_context_size = 0,
                   .req = nullptr};
    ucc_ee_params_t eep = {
        .ee_type = UCC_EE_CPU_THREAD, .ee_context = nullptr, .ee_context_size = 0};
    EXPECT_EQ(ev.ev_type, UCC_EVENT_COMPUTE_COMPLETE);
    EXPECT_EQ(eep.ee_type, UCC_EE_CPU_THREAD);
}

TEST(ApiHeader, VersionMacros) {
    EXPECT_STREQ(UCC_VERSION_STRING, UCC_TEST_PROJECT_VERSION);
    EXPECT_STRNE(UCC_GIT_REVISION, "");
    EXPECT_EQ(UCC_API_VERSION, (1 << 24) | (3 << 16));
    EXPECT_LT(UCC_VERSION(1, 3), UCC_VERSION(1, 4));
    EXPECT_LT(UCC_VERSION(1, 15), UCC_VERSION(2, 0));
}
