/**
 * @file ucc.h
 * @brief Unified Collective Communications (UCC) public C API, version 1.3.
 *
 * This header declares the whole user-facing interface: library, datatype,
 * context, team, collective and execution-engine objects, and the routines
 * operating on them. The names, field order, types and numeric values match
 * the published UCC headers (v1.3, plus the compatible additions of later
 * API versions: the corrected hint spelling, memory mapping, trailing memory
 * handles in ucc_coll_args_t and UCC_ERR_IO_ERROR).
 *
 * The header is plain C (C99 or later) and can also be included from C++;
 * every symbol has C linkage.
 */

#ifndef UCC_H_
#define UCC_H_

#include <stdio.h>
#include <ucc/api/ucc_def.h>
#include <ucc/api/ucc_status.h>
#include <ucc/api/ucc_version.h>

BEGIN_C_DECLS

/* ******************************************************************** */
/*  Library initialization data structures                               */
/* ******************************************************************** */

/**
 * @ingroup UCC_LIB_INIT_DT
 * @brief Collective operation kinds.
 *
 * One bit per kind, so several kinds can be combined into a mask (for
 * example ucc_lib_params_t::coll_types). Which kinds are actually available
 * depends on the build and the transports present.
 */
typedef enum {
    UCC_COLL_TYPE_ALLGATHER = UCC_BIT(0),        /*!< Gather a block from everyone, to everyone. */
    UCC_COLL_TYPE_ALLGATHERV = UCC_BIT(1),       /*!< Allgather with per-member block sizes. */
    UCC_COLL_TYPE_ALLREDUCE = UCC_BIT(2),        /*!< Element-wise reduction, result everywhere. */
    UCC_COLL_TYPE_ALLTOALL = UCC_BIT(3),         /*!< Personalised exchange, equal blocks. */
    UCC_COLL_TYPE_ALLTOALLV = UCC_BIT(4),        /*!< Personalised exchange, variable blocks. */
    UCC_COLL_TYPE_BARRIER = UCC_BIT(5),          /*!< Synchronise all members. */
    UCC_COLL_TYPE_BCAST = UCC_BIT(6),            /*!< Root's buffer copied to everyone. */
    UCC_COLL_TYPE_FANIN = UCC_BIT(7),            /*!< Root waits until all have arrived. */
    UCC_COLL_TYPE_FANOUT = UCC_BIT(8),           /*!< Everyone waits for the root. */
    UCC_COLL_TYPE_GATHER = UCC_BIT(9),           /*!< Blocks collected at the root. */
    UCC_COLL_TYPE_GATHERV = UCC_BIT(10),         /*!< Gather with per-member block sizes. */
    UCC_COLL_TYPE_REDUCE = UCC_BIT(11),          /*!< Element-wise reduction, result at root. */
    UCC_COLL_TYPE_REDUCE_SCATTER = UCC_BIT(12),  /*!< Reduction, result split evenly. */
    UCC_COLL_TYPE_REDUCE_SCATTERV = UCC_BIT(13), /*!< Reduction, result split unevenly. */
    UCC_COLL_TYPE_SCATTER = UCC_BIT(14),         /*!< Root's blocks distributed. */
    UCC_COLL_TYPE_SCATTERV = UCC_BIT(15),        /*!< Scatter with per-member block sizes. */
    UCC_COLL_TYPE_LAST                           /*!< One past the last bit value; not a type. */
} ucc_coll_type_t;

/**
 * @ingroup UCC_COLLECTIVES_DT
 * @brief Where a buffer lives.
 */
typedef enum ucc_memory_type {
    UCC_MEMORY_TYPE_HOST,                          /*!< Ordinary system memory. */
    UCC_MEMORY_TYPE_CUDA,                          /*!< NVIDIA device memory. */
    UCC_MEMORY_TYPE_CUDA_MANAGED,                  /*!< NVIDIA managed (unified) memory. */
    UCC_MEMORY_TYPE_ROCM,                          /*!< AMD device memory. */
    UCC_MEMORY_TYPE_ROCM_MANAGED,                  /*!< AMD managed memory. */
    UCC_MEMORY_TYPE_LAST,                          /*!< Number of known memory types. */
    UCC_MEMORY_TYPE_UNKNOWN = UCC_MEMORY_TYPE_LAST /*!< Ask the library to detect it. */
} ucc_memory_type_t;

/* ******************************************************************** */
/*  Datatypes                                                           */
/* ******************************************************************** */

/**
 * @ingroup UCC_DATATYPE
 * @brief Datatype of collective buffer elements.
 *
 * Either one of the predefined UCC_DT_* values, or a value returned by
 * ucc_dt_create_generic(). The class is stored in the low bits
 * (see ucc_dt_type_t).
 */
typedef uint64_t ucc_datatype_t;

#define UCC_DT_INT8 UCC_PREDEFINED_DT(0)              /*!< int8_t */
#define UCC_DT_INT16 UCC_PREDEFINED_DT(1)             /*!< int16_t */
#define UCC_DT_INT32 UCC_PREDEFINED_DT(2)             /*!< int32_t */
#define UCC_DT_INT64 UCC_PREDEFINED_DT(3)             /*!< int64_t */
#define UCC_DT_INT128 UCC_PREDEFINED_DT(4)            /*!< 128-bit signed integer */
#define UCC_DT_UINT8 UCC_PREDEFINED_DT(5)             /*!< uint8_t */
#define UCC_DT_UINT16 UCC_PREDEFINED_DT(6)            /*!< uint16_t */
#define UCC_DT_UINT32 UCC_PREDEFINED_DT(7)            /*!< uint32_t */
#define UCC_DT_UINT64 UCC_PREDEFINED_DT(8)            /*!< uint64_t */
#define UCC_DT_UINT128 UCC_PREDEFINED_DT(9)           /*!< 128-bit unsigned integer */
#define UCC_DT_FLOAT16 UCC_PREDEFINED_DT(10)          /*!< IEEE half precision */
#define UCC_DT_FLOAT32 UCC_PREDEFINED_DT(11)          /*!< float */
#define UCC_DT_FLOAT64 UCC_PREDEFINED_DT(12)          /*!< double */
#define UCC_DT_BFLOAT16 UCC_PREDEFINED_DT(13)         /*!< brain floating point */
#define UCC_DT_FLOAT128 UCC_PREDEFINED_DT(14)         /*!< long double */
#define UCC_DT_FLOAT32_COMPLEX UCC_PREDEFINED_DT(15)  /*!< pair of float */
#define UCC_DT_FLOAT64_COMPLEX UCC_PREDEFINED_DT(16)  /*!< pair of double */
#define UCC_DT_FLOAT128_COMPLEX UCC_PREDEFINED_DT(17) /*!< pair of long double */
/** Number of predefined datatypes (a count, not a datatype value). */
#define UCC_DT_PREDEFINED_LAST 18

/**
 * @ingroup UCC_DATATYPE
 * @brief Bits of ucc_generic_dt_ops_t::mask.
 */
enum ucc_generic_dt_ops_field {
    UCC_GENERIC_DT_OPS_FIELD_FLAGS = UCC_BIT(0) /*!< ucc_generic_dt_ops_t::flags is valid. */
};

/**
 * @ingroup UCC_DATATYPE
 * @brief Properties of a generic datatype (ucc_generic_dt_ops_t::flags).
 */
typedef enum {
    /** The type occupies one contiguous region of contig_size bytes. */
    UCC_GENERIC_DT_OPS_FLAG_CONTIG = UCC_BIT(0),
    /** reduce.cb / reduce.cb_ctx are set; the type may be used in reductions. */
    UCC_GENERIC_DT_OPS_FLAG_REDUCE = UCC_BIT(1)
} ucc_generic_dt_ops_flags_t;

/**
 * @ingroup UCC_DATATYPE
 * @brief Argument of a user reduction callback.
 *
 * The callback combines n_vectors + 1 vectors of @a count elements each:
 * the first is @a src1, the others start at @a src2 and are @a stride bytes
 * apart. The element-wise result goes to @a dst.
 */
typedef struct ucc_reduce_cb_params {
    uint64_t mask;        /*!< Reserved; ignored. */
    void *src1;           /*!< First input vector. */
    void *src2;           /*!< Start of the remaining n_vectors inputs. */
    void *dst;            /*!< Output vector. */
    size_t n_vectors;     /*!< How many vectors begin at src2. */
    size_t count;         /*!< Elements per vector. */
    size_t stride;        /*!< Bytes between consecutive vectors at src2. */
    ucc_dt_generic_t *dt; /*!< The generic datatype being reduced. */
    void *cb_ctx;         /*!< reduce.cb_ctx given at datatype creation. */
} ucc_reduce_cb_params_t;

/**
 * @ingroup UCC_DATATYPE
 * @brief Callback table describing a user-defined datatype.
 */
typedef struct ucc_generic_dt_ops {
    uint64_t mask;      /*!< Valid optional fields (ucc_generic_dt_ops_field). */
    uint64_t flags;     /*!< OR of ucc_generic_dt_ops_flags_t. */
    size_t contig_size; /*!< Size in bytes of one element when CONTIG is set. */

    /** Begin packing @a count elements of @a buffer; returns a state object. */
    void *(*start_pack)(void *context, const void *buffer, size_t count);

    /** Begin unpacking @a count elements into @a buffer; returns a state object. */
    void *(*start_unpack)(void *context, void *buffer, size_t count);

    /** Total packed size in bytes of a pack state. */
    size_t (*packed_size)(void *state);

    /** Write up to @a max_length packed bytes, starting at stream @a offset,
     *  into @a dest; returns the number of bytes written. */
    size_t (*pack)(void *state, size_t offset, void *dest, size_t max_length);

    /** Consume @a length packed bytes at stream @a offset from @a src. */
    ucc_status_t (*unpack)(void *state, size_t offset, const void *src, size_t length);

    /** Release a pack or unpack state. */
    void (*finish)(void *state);

    /** User reduction, used when UCC_GENERIC_DT_OPS_FLAG_REDUCE is set. */
    struct {
        ucc_status_t (*cb)(const ucc_reduce_cb_params_t *params); /*!< Reduction routine. */
        void *cb_ctx; /*!< Passed back as ucc_reduce_cb_params_t::cb_ctx. */
    } reduce;
} ucc_generic_dt_ops_t;

/**
 * @ingroup UCC_DATATYPE
 * @brief Register a user-defined datatype.
 *
 * @param [in]  ops         Callback table (copied by the library).
 * @param [in]  context     Handed back to start_pack / start_unpack.
 * @param [out] datatype_p  The new datatype; release with ucc_dt_destroy().
 * @return UCC_OK or an error code.
 */
ucc_status_t ucc_dt_create_generic(const ucc_generic_dt_ops_t *ops, void *context,
                                   ucc_datatype_t *datatype_p);

/**
 * @ingroup UCC_DATATYPE
 * @brief Release a datatype made by ucc_dt_create_generic().
 *
 * Does nothing for predefined datatypes.
 *
 * @param [in] datatype  Handle from ucc_dt_create_generic(), or a predefined UCC_DT_* value.
 */
void ucc_dt_destroy(ucc_datatype_t datatype);

/**
 * @ingroup UCC_LIB_INIT_DT
 * @brief Predefined reduction operations (sequential values).
 */
typedef enum {
    UCC_OP_SUM,    /*!< Sum. */
    UCC_OP_PROD,   /*!< Product. */
    UCC_OP_MAX,    /*!< Maximum. */
    UCC_OP_MIN,    /*!< Minimum. */
    UCC_OP_LAND,   /*!< Logical AND. */
    UCC_OP_LOR,    /*!< Logical OR. */
    UCC_OP_LXOR,   /*!< Logical exclusive OR. */
    UCC_OP_BAND,   /*!< Bitwise AND. */
    UCC_OP_BOR,    /*!< Bitwise OR. */
    UCC_OP_BXOR,   /*!< Bitwise exclusive OR. */
    UCC_OP_MAXLOC, /*!< Maximum and its location. */
    UCC_OP_MINLOC, /*!< Minimum and its location. */
    UCC_OP_AVG,    /*!< Average over the team. */
    UCC_OP_LAST    /*!< Number of operations; not an operation. */
} ucc_reduction_op_t;

/**
 * @ingroup UCC_LIB_INIT_DT
 * @brief How application threads may call into the library.
 */
typedef enum {
    UCC_THREAD_SINGLE = 0,   /*!< The application has a single thread. */
    UCC_THREAD_FUNNELED = 1, /*!< Many threads, but one of them makes all UCC calls. */
    UCC_THREAD_MULTIPLE = 2  /*!< Any thread may make UCC calls. */
} ucc_thread_mode_t;

/**
 * @ingroup UCC_LIB_INIT_DT
 * @brief Synchronisation model of collectives.
 */
typedef enum {
    UCC_NO_SYNC_COLLECTIVES = 0, /*!< A member may start and finish on its own. */
    UCC_SYNC_COLLECTIVES = 1     /*!< Start only after all entered; finish after all done. */
} ucc_coll_sync_type_t;

/**
 * @ingroup UCC_LIB_INIT_DT
 * @brief Bits of ucc_lib_params_t::mask.
 */
enum ucc_lib_params_field {
    UCC_LIB_PARAM_FIELD_THREAD_MODE = UCC_BIT(0),     /*!< thread_mode is set. */
    UCC_LIB_PARAM_FIELD_COLL_TYPES = UCC_BIT(1),      /*!< coll_types is set. */
    UCC_LIB_PARAM_FIELD_REDUCTION_TYPES = UCC_BIT(2), /*!< reduction_types is set. */
    UCC_LIB_PARAM_FIELD_SYNC_TYPE = UCC_BIT(3)        /*!< sync_type is set. */
};

/**
 * @ingroup UCC_LIB_INIT_DT
 * @brief Bits of ucc_lib_attr_t::mask.
 */
enum ucc_lib_attr_field {
    UCC_LIB_ATTR_FIELD_THREAD_MODE = UCC_BIT(0),     /*!< Query thread_mode. */
    UCC_LIB_ATTR_FIELD_COLL_TYPES = UCC_BIT(1),      /*!< Query coll_types. */
    UCC_LIB_ATTR_FIELD_REDUCTION_TYPES = UCC_BIT(2), /*!< Query reduction_types. */
    UCC_LIB_ATTR_FIELD_SYNC_TYPE = UCC_BIT(3)        /*!< Query sync_type. */
};

/**
 * @ingroup UCC_LIB_INIT_DT
 * @brief What the application asks of the library at ucc_init().
 *
 * Only the fields whose bit is set in @a mask are read.
 */
typedef struct ucc_lib_params {
    uint64_t mask;                  /*!< OR of ucc_lib_params_field. */
    ucc_thread_mode_t thread_mode;  /*!< Requested thread mode. */
    uint64_t coll_types;            /*!< OR of ucc_coll_type_t bits wanted. */
    uint64_t reduction_types;       /*!< Mask of reduction operations wanted. */
    ucc_coll_sync_type_t sync_type; /*!< Requested synchronisation model. */
} ucc_lib_params_t;

/**
 * @ingroup UCC_LIB_INIT_DT
 * @brief What the library actually provides (filled by ucc_lib_get_attr()).
 *
 * Only the fields whose bit is set in @a mask are filled.
 */
typedef struct ucc_lib_attr {
    uint64_t mask;                  /*!< OR of ucc_lib_attr_field. */
    ucc_thread_mode_t thread_mode;  /*!< Thread mode in effect. */
    uint64_t coll_types;            /*!< OR of supported ucc_coll_type_t bits. */
    uint64_t reduction_types;       /*!< Mask of supported reduction operations. */
    ucc_coll_sync_type_t sync_type; /*!< Synchronisation model in effect. */
} ucc_lib_attr_t;

/* ******************************************************************** */
/*  Library routines                                                    */
/* ******************************************************************** */

/**
 * @ingroup UCC_LIB
 * @brief Create a library configuration from the environment.
 *
 * @param [in]  env_prefix  Extra prefix for the environment variables, or NULL.
 * @param [in]  filename    Optional configuration file, or NULL.
 * @param [out] config      The new configuration descriptor.
 * @return UCC_OK or an error code.
 */
ucc_status_t ucc_lib_config_read(const char *env_prefix, const char *filename,
                                 ucc_lib_config_h *config);

/**
 * @ingroup UCC_LIB
 * @brief Free a descriptor made by ucc_lib_config_read().
 *
 * @param [in] config  Descriptor to free; NULL is ignored.
 */
void ucc_lib_config_release(ucc_lib_config_h config);

/**
 * @ingroup UCC_LIB
 * @brief Write a library configuration to @a stream.
 *
 * @param [in] config       Descriptor to print.
 * @param [in] stream       Destination stream.
 * @param [in] title        Heading text.
 * @param [in] print_flags  OR of ucc_config_print_flags_t.
 */
void ucc_lib_config_print(const ucc_lib_config_h config, FILE *stream, const char *title,
                          ucc_config_print_flags_t print_flags);

/**
 * @ingroup UCC_LIB
 * @brief Set one variable (named without prefix) of a library configuration.
 *
 * @param [in] config  Descriptor to change.
 * @param [in] name    Variable name without its prefix (e.g. "LOG_LEVEL").
 * @param [in] value   New value as text.
 * @return UCC_OK; UCC_ERR_NOT_FOUND for an unknown name; UCC_ERR_INVALID_PARAM for a NULL
 *         argument or a value the variable does not accept.
 */
ucc_status_t ucc_lib_config_modify(ucc_lib_config_h config, const char *name, const char *value);

/**
 * @ingroup UCC_LIB
 * @brief Report the version of the library that is linked in.
 *
 * @param [out] major_version   Major number.
 * @param [out] minor_version   Minor number.
 * @param [out] release_number  Release (patch) number.
 */
void ucc_get_version(unsigned *major_version, unsigned *minor_version, unsigned *release_number);

/**
 * @ingroup UCC_LIB
 * @brief Version of the linked library as a static "major.minor.release" string.
 *
 * @return UCC_VERSION_STRING of the library's build; never NULL, never to be freed.
 */
const char *ucc_get_version_string(void);

/**
 * @ingroup UCC_LIB_INTERNAL
 * @brief Real entry point behind ucc_init(); also receives the API version
 *        the caller was compiled against. Call ucc_init() instead.
 *
 * A caller built for another major version, or a newer minor one, only gets
 * a warning on stderr; the library is still created.
 *
 * @param [in]  api_major_version  UCC_API_MAJOR of the caller's headers.
 * @param [in]  api_minor_version  UCC_API_MINOR of the caller's headers.
 * @param [in]  params             Requested features.
 * @param [in]  config             Configuration from ucc_lib_config_read(), or NULL to read
 *                                 the environment.
 * @param [out] lib_p              The new library handle.
 * @return UCC_OK, or an error code with no library created (UCC_ERR_INVALID_PARAM for a NULL
 *         params or lib_p, or an invalid thread_mode or sync_type).
 */
ucc_status_t ucc_init_version(unsigned api_major_version, unsigned api_minor_version,
                              const ucc_lib_params_t *params, const ucc_lib_config_h config,
                              ucc_lib_h *lib_p);

/**
 * @ingroup UCC_LIB
 * @brief Initialise a library instance (local operation).
 *
 * @param [in]  params  Requested features (thread mode, collectives, ...).
 * @param [in]  config  Configuration from ucc_lib_config_read().
 * @param [out] lib_p   The new library handle.
 * @return UCC_OK, or an error code with no library created.
 */
static inline ucc_status_t ucc_init(const ucc_lib_params_t *params, const ucc_lib_config_h config,
                                    ucc_lib_h *lib_p) {
    return ucc_init_version(UCC_API_MAJOR, UCC_API_MINOR, params, config, lib_p);
}

/**
 * @ingroup UCC_LIB
 * @brief Release a library instance; every ucc_init() needs one of these.
 *
 * @param [in] lib_p  Library to release; its contexts must be destroyed first.
 * @return UCC_OK; UCC_ERR_INVALID_PARAM for a NULL handle or while a context of it is alive.
 */
ucc_status_t ucc_finalize(ucc_lib_h lib_p);

/**
 * @ingroup UCC_LIB
 * @brief Query the attributes selected in @a lib_attr->mask.
 *
 * @param [in]     lib_p     Library to query.
 * @param [in,out] lib_attr  The caller sets mask; the library fills the selected fields.
 * @return UCC_OK; UCC_ERR_INVALID_PARAM for a NULL argument.
 */
ucc_status_t ucc_lib_get_attr(ucc_lib_h lib_p, ucc_lib_attr_t *lib_attr);

/* ******************************************************************** */
/*  Context                                                             */
/* ******************************************************************** */

/**
 * @ingroup UCC_CONTEXT_DT
 * @brief Sharing policy of a context.
 */
typedef enum {
    UCC_CONTEXT_EXCLUSIVE = 0, /*!< At most one valid team at a time. */
    UCC_CONTEXT_SHARED         /*!< Any number of teams at once. */
} ucc_context_type_t;

/**
 * @ingroup UCC_CONTEXT_DT
 * @brief Bits of ucc_context_params_t::mask.
 */
enum ucc_context_params_field {
    UCC_CONTEXT_PARAM_FIELD_TYPE = UCC_BIT(0),      /*!< type is set. */
    UCC_CONTEXT_PARAM_FIELD_SYNC_TYPE = UCC_BIT(1), /*!< sync_type is set. */
    UCC_CONTEXT_PARAM_FIELD_OOB = UCC_BIT(2),       /*!< oob is set. */
    UCC_CONTEXT_PARAM_FIELD_ID = UCC_BIT(3),        /*!< ctx_id is set. */
    UCC_CONTEXT_PARAM_FIELD_MEM_PARAMS = UCC_BIT(4) /*!< mem_params is set. */
};

/**
 * @ingroup UCC_CONTEXT_DT
 * @brief Bits of ucc_context_attr_t::mask.
 */
enum ucc_context_attr_field {
    UCC_CONTEXT_ATTR_FIELD_TYPE = UCC_BIT(0),            /*!< Query type. */
    UCC_CONTEXT_ATTR_FIELD_SYNC_TYPE = UCC_BIT(1),       /*!< Query sync_type. */
    UCC_CONTEXT_ATTR_FIELD_CTX_ADDR = UCC_BIT(2),        /*!< Query ctx_addr. */
    UCC_CONTEXT_ATTR_FIELD_CTX_ADDR_LEN = UCC_BIT(3),    /*!< Query ctx_addr_len. */
    UCC_CONTEXT_ATTR_FIELD_WORK_BUFFER_SIZE = UCC_BIT(4) /*!< Query global_work_buffer_size. */
};

/**
 * @ingroup UCC_CONTEXT_DT
 * @brief User-supplied out-of-band allgather, used to bootstrap contexts and teams.
 */
typedef struct ucc_oob_coll {
    /** Start a non-blocking allgather of @a size bytes per participant; the
     *  contribution of participant k lands at recv_buf + k * size. The user's
     *  request object is returned through @a request. */
    ucc_status_t (*allgather)(void *src_buf, void *recv_buf, size_t size, void *allgather_info,
                              void **request);
    /** UCC_OK when done, UCC_INPROGRESS while running, negative on error. */
    ucc_status_t (*req_test)(void *request);
    /** Release a request obtained from allgather. */
    ucc_status_t (*req_free)(void *request);
    void *coll_info;    /*!< Handed to allgather as allgather_info. */
    uint32_t n_oob_eps; /*!< Number of participants. */
    uint32_t oob_ep;    /*!< Caller's unique position in [0, n_oob_eps). */
} ucc_oob_coll_t;

/** OOB collective used when creating a context. */
typedef ucc_oob_coll_t ucc_context_oob_coll_t;
/** OOB collective used when creating a team. */
typedef ucc_oob_coll_t ucc_team_oob_coll_t;

/**
 * @ingroup UCC_CONTEXT_DT
 * @brief One memory segment.
 */
typedef struct ucc_mem_map {
    void *address; /*!< Start of the segment. */
    size_t len;    /*!< Length in bytes. */
} ucc_mem_map_t;

/**
 * @ingroup UCC_CONTEXT_DT
 * @brief A set of memory segments.
 */
typedef struct ucc_mem_map_params {
    ucc_mem_map_t *segments; /*!< Array of segments. */
    uint64_t n_segments;     /*!< Number of entries in @a segments. */
} ucc_mem_map_params_t;

/**
 * @ingroup UCC_CONTEXT_DT
 * @brief Context creation parameters; only fields flagged in @a mask are read.
 */
typedef struct ucc_context_params {
    uint64_t mask;                   /*!< OR of ucc_context_params_field. */
    ucc_context_type_t type;         /*!< Exclusive or shared. */
    ucc_coll_sync_type_t sync_type;  /*!< Synchronisation model. */
    ucc_context_oob_coll_t oob;      /*!< OOB allgather over the context group. */
    uint64_t ctx_id;                 /*!< User id of the context. */
    ucc_mem_map_params_t mem_params; /*!< Memory to attach to the context. */
} ucc_context_params_t;

/**
 * @ingroup UCC_CONTEXT_DT
 * @brief Context attributes; only fields flagged in @a mask are filled.
 */
typedef struct ucc_context_attr {
    uint64_t mask;                       /*!< OR of ucc_context_attr_field. */
    ucc_context_type_t type;             /*!< Exclusive or shared. */
    ucc_coll_sync_type_t sync_type;      /*!< Synchronisation model. */
    ucc_context_addr_h ctx_addr;         /*!< Serialisable address (library-owned). */
    ucc_context_addr_len_t ctx_addr_len; /*!< Length of ctx_addr in bytes. */
    uint64_t global_work_buffer_size;    /*!< Bytes needed for a one-sided work buffer. */
} ucc_context_attr_t;

/**
 * @ingroup UCC_CONTEXT_DT
 * @brief Direction of ucc_mem_map() (API >= 1.5).
 */
typedef enum ucc_mem_map_mode {
    UCC_MEM_MAP_MODE_EXPORT = 0,         /*!< Map local memory, produce a packable handle. */
    UCC_MEM_MAP_MODE_IMPORT = 1,         /*!< Make a received handle usable locally. */
    UCC_MEM_MAP_MODE_EXPORT_OFFLOAD = 2, /*!< Export for an offload device. */
    UCC_MEM_MAP_MODE_IMPORT_OFFLOAD = 3, /*!< Import on an offload device. */
    UCC_MEM_MAP_MODE_LAST = 4            /*!< Number of modes; not a mode. */
} ucc_mem_map_mode_t;

/**
 * @ingroup UCC_CONTEXT_DT
 * @brief Handle of mapped memory (API >= 1.5).
 */
typedef void *ucc_mem_map_mem_h;

/**
 * @ingroup UCC_CONTEXT
 * @brief Create a context configuration from the environment.
 *
 * @param [in]  lib_handle  Library whose environment prefix is reused.
 * @param [in]  filename    Optional configuration file, or NULL.
 * @param [out] config      The new descriptor.
 * @return UCC_OK or an error code.
 */
ucc_status_t ucc_context_config_read(ucc_lib_h lib_handle, const char *filename,
                                     ucc_context_config_h *config);

/**
 * @ingroup UCC_CONTEXT
 * @brief Free a descriptor made by ucc_context_config_read().
 *
 * @param [in] config  Descriptor to free; NULL is ignored.
 */
void ucc_context_config_release(ucc_context_config_h config);

/**
 * @ingroup UCC_CONTEXT
 * @brief Write a context configuration to @a stream.
 *
 * @param [in] config       Descriptor to print; NULL only logs an error.
 * @param [in] stream       Destination stream.
 * @param [in] title        Heading text.
 * @param [in] print_flags  OR of ucc_config_print_flags_t.
 */
void ucc_context_config_print(const ucc_context_config_h config, FILE *stream, const char *title,
                              ucc_config_print_flags_t print_flags);

/**
 * @ingroup UCC_CONTEXT
 * @brief Set one variable of a context configuration.
 *
 * @param [in] config     Descriptor to change.
 * @param [in] component  NULL for the core settings, or a component such as "tl/ucp".
 * @param [in] name       Variable name.
 * @param [in] value      New value as text.
 * @return UCC_OK; UCC_ERR_NOT_FOUND for an unknown component or name; UCC_ERR_INVALID_PARAM
 *         for a NULL config, name or value, a component not of the form cl/NAME or tl/NAME
 *         (or "all"), or a value the variable does not accept.
 */
ucc_status_t ucc_context_config_modify(ucc_context_config_h config, const char *component,
                                       const char *name, const char *value);

/**
 * @ingroup UCC_CONTEXT
 * @brief Create a communication context.
 *
 * Local unless an OOB is given in @a params, in which case every OOB
 * participant must call it.
 *
 * @param [in]  lib_handle  Library the context belongs to.
 * @param [in]  params      Context parameters; only fields flagged in its mask are read.
 * @param [in]  config      Configuration from ucc_context_config_read(), or NULL to read the
 *                          environment.
 * @param [out] context     The new context handle.
 * @return UCC_OK, or an error code with no context created (UCC_ERR_INVALID_PARAM for a NULL
 *         argument or an invalid field of @a params).
 */
ucc_status_t ucc_context_create(ucc_lib_h lib_handle, const ucc_context_params_t *params,
                                const ucc_context_config_h config, ucc_context_h *context);

/**
 * @ingroup UCC_CONTEXT
 * @brief Advance all outstanding work on the context without blocking.
 *
 * @param [in] context  Context to progress.
 * @return UCC_OK, also while work remains; UCC_ERR_TIMED_OUT when a collective with a timeout
 *         expired during the call; UCC_ERR_NO_MESSAGE when the simulated run was aborted;
 *         UCC_ERR_INVALID_PARAM for a NULL or destroyed context.
 */
ucc_status_t ucc_context_progress(ucc_context_h context);

/**
 * @ingroup UCC_CONTEXT
 * @brief Destroy a context; memory mapped on it must be unmapped first.
 *
 * Teams still on the context are destroyed with it, provided none of them is
 * being created or has requests that are not finalized. It does no communication.
 *
 * @param [in] context  Context to destroy.
 * @return UCC_OK; UCC_ERR_INVALID_PARAM for a NULL or destroyed context, while a team of it is
 *         being created or has requests that are not finalized, or while memory is mapped on it.
 */
ucc_status_t ucc_context_destroy(ucc_context_h context);

/**
 * @ingroup UCC_CONTEXT
 * @brief Query the attributes selected in @a context_attr->mask.
 *
 * @param [in]     context       Context to query.
 * @param [in,out] context_attr  The caller sets mask; the library fills the selected fields.
 * @return UCC_OK; UCC_ERR_INVALID_PARAM for a NULL argument or a destroyed context.
 */
ucc_status_t ucc_context_get_attr(ucc_context_h context, ucc_context_attr_t *context_attr);

/**
 * @ingroup UCC_CONTEXT
 * @brief Map or import memory for one-sided collectives (API >= 1.5).
 *
 * @param [in]     context    Context the memory is bound to.
 * @param [in]     mode       Export or import (ucc_mem_map_mode_t).
 * @param [in]     params     Segment to map (export modes).
 * @param [in,out] memh_size  Size in bytes of the packed handle.
 * @param [in,out] memh       Resulting handle (export) or handle to import.
 * @return UCC_OK or an error code.
 */
ucc_status_t ucc_mem_map(ucc_context_h context, ucc_mem_map_mode_t mode,
                         const ucc_mem_map_params_t *params, size_t *memh_size,
                         ucc_mem_map_mem_h *memh);

/**
 * @ingroup UCC_CONTEXT
 * @brief Release a handle from ucc_mem_map() and set it to NULL (API >= 1.5).
 *
 * @param [in,out] memh  Points to the handle to release.
 * @return UCC_OK; UCC_ERR_INVALID_PARAM when @a memh or the handle is NULL, or the handle was
 *         not made by ucc_mem_map().
 */
ucc_status_t ucc_mem_unmap(ucc_mem_map_mem_h *memh);

/* ******************************************************************** */
/*  Team                                                                */
/* ******************************************************************** */

/**
 * @ingroup UCC_TEAM_DT
 * @brief Bits of ucc_team_params_t::mask.
 */
enum ucc_team_params_field {
    UCC_TEAM_PARAM_FIELD_ORDERING = UCC_BIT(0),          /*!< ordering is set. */
    UCC_TEAM_PARAM_FIELD_OUTSTANDING_COLLS = UCC_BIT(1), /*!< outstanding_colls is set. */
    UCC_TEAM_PARAM_FIELD_EP = UCC_BIT(2),                /*!< ep is set. */
    UCC_TEAM_PARAM_FIELD_EP_LIST = UCC_BIT(3),           /*!< ep_list is set. */
    UCC_TEAM_PARAM_FIELD_EP_RANGE = UCC_BIT(4),          /*!< ep_range is set. */
    UCC_TEAM_PARAM_FIELD_TEAM_SIZE = UCC_BIT(5),         /*!< team_size is set. */
    UCC_TEAM_PARAM_FIELD_SYNC_TYPE = UCC_BIT(6),         /*!< sync_type is set. */
    UCC_TEAM_PARAM_FIELD_OOB = UCC_BIT(7),               /*!< oob is set. */
    UCC_TEAM_PARAM_FIELD_P2P_CONN = UCC_BIT(8),          /*!< p2p_conn is set. */
    UCC_TEAM_PARAM_FIELD_MEM_PARAMS = UCC_BIT(9),        /*!< mem_params is set. */
    UCC_TEAM_PARAM_FIELD_EP_MAP = UCC_BIT(10),           /*!< ep_map is set. */
    UCC_TEAM_PARAM_FIELD_ID = UCC_BIT(11),               /*!< id is set. */
    UCC_TEAM_PARAM_FIELD_FLAGS = UCC_BIT(12)             /*!< flags is set. */
};

/**
 * @ingroup UCC_TEAM_DT
 * @brief Bits of ucc_team_attr_t::mask.
 */
enum ucc_team_attr_field {
    UCC_TEAM_ATTR_FIELD_POST_ORDERING = UCC_BIT(0),     /*!< Query ordering. */
    UCC_TEAM_ATTR_FIELD_OUTSTANDING_CALLS = UCC_BIT(1), /*!< Query outstanding_colls. */
    UCC_TEAM_ATTR_FIELD_EP = UCC_BIT(2),                /*!< Query ep. */
    UCC_TEAM_ATTR_FIELD_EP_RANGE = UCC_BIT(3),          /*!< Query ep_range. */
    UCC_TEAM_ATTR_FIELD_SYNC_TYPE = UCC_BIT(4),         /*!< Query sync_type. */
    UCC_TEAM_ATTR_FIELD_MEM_PARAMS = UCC_BIT(5),        /*!< Query mem_params. */
    UCC_TEAM_ATTR_FIELD_SIZE = UCC_BIT(6),              /*!< Query size. */
    UCC_TEAM_ATTR_FIELD_EPS = UCC_BIT(7)                /*!< Query eps. */
};

/**
 * @ingroup UCC_TEAM_DT
 * @brief Values for ucc_team_params_t::flags.
 */
enum ucc_team_flags {
    /** The user supplies global_work_buffer for each one-sided collective;
     *  otherwise the library uses its own scratch space. */
    UCC_TEAM_FLAG_COLL_WORK_BUFFER = UCC_BIT(0)
};

/**
 * @ingroup UCC_TEAM_DT
 * @brief Callbacks giving the library point-to-point connection data of peers.
 */
typedef struct ucc_team_p2p_conn {
    /** Look up connection data of endpoint @a ep. */
    int (*conn_info_lookup)(void *conn_ctx, uint64_t ep, ucc_p2p_conn_t **conn_info, void *request);
    /** Release data returned by conn_info_lookup. */
    int (*conn_info_release)(ucc_p2p_conn_t *conn_info);
    void *conn_ctx;                          /*!< Passed to conn_info_lookup. */
    ucc_status_t (*req_test)(void *request); /*!< Test a lookup request. */
    ucc_status_t (*req_free)(void *request); /*!< Free a lookup request. */
} ucc_team_p2p_conn_t;

/**
 * @ingroup UCC_TEAM_DT
 * @brief Ordering guarantee the members give for collective calls.
 */
typedef enum {
    UCC_COLLECTIVE_POST_ORDERED = 0,           /*!< Posts happen in the same order everywhere. */
    UCC_COLLECTIVE_POST_UNORDERED = 1,         /*!< Posts may come in any order. */
    UCC_COLLECTIVE_INIT_ORDERED = 2,           /*!< Inits happen in the same order everywhere. */
    UCC_COLLECTIVE_INIT_UNORDERED = 3,         /*!< Inits may come in any order. */
    UCC_COLLECTIVE_INIT_AND_POST_ORDERED = 4,  /*!< Inits and posts are both ordered. */
    UCC_COLLECTIVE_INIT_AND_POST_UNORDERED = 5 /*!< Inits and posts may both be unordered. */
} ucc_post_ordering_t;

/**
 * @ingroup UCC_TEAM_DT
 * @brief Hint about whether team endpoints are contiguous.
 */
typedef enum {
    UCC_COLLECTIVE_EP_RANGE_CONTIG = 0,   /*!< Endpoints are 0 .. size-1. */
    UCC_COLLECTIVE_EP_RANGE_NONCONTIG = 1 /*!< Endpoints are arbitrary. */
} ucc_ep_range_type_t;

/**
 * @ingroup UCC_TEAM_DT
 * @brief Team endpoint i maps to context endpoint start + i * stride.
 */
struct ucc_ep_map_strided {
    uint64_t start; /*!< Context endpoint of team endpoint 0. */
    int64_t stride; /*!< Step between consecutive entries (may be negative). */
};

/**
 * @ingroup UCC_TEAM_DT
 * @brief Team endpoint i maps to context endpoint map[i].
 */
struct ucc_ep_map_array {
    void *map;        /*!< Array of context endpoints. */
    size_t elem_size; /*!< Width in bytes of one entry (e.g. 4 or 8). */
};

/**
 * @ingroup UCC_TEAM_DT
 * @brief Team endpoint i maps to context endpoint cb(i, cb_ctx).
 */
struct ucc_ep_map_cb {
    uint64_t (*cb)(uint64_t ep, void *cb_ctx); /*!< Mapping function. */
    void *cb_ctx;                              /*!< Passed to @a cb. */
};

/**
 * @ingroup UCC_TEAM_DT
 * @brief Kind of team-to-context endpoint mapping.
 */
typedef enum {
    UCC_EP_MAP_FULL = 1,    /*!< Team covers all context endpoints, same numbering. */
    UCC_EP_MAP_STRIDED = 2, /*!< Uses ucc_ep_map_t::strided. */
    UCC_EP_MAP_ARRAY = 3,   /*!< Uses ucc_ep_map_t::array. */
    UCC_EP_MAP_CB = 4       /*!< Uses ucc_ep_map_t::cb. */
} ucc_ep_map_type_t;

/**
 * @ingroup UCC_TEAM_DT
 * @brief Mapping from team endpoints to endpoints of the context's OOB group.
 *
 * The anonymous union member is chosen by @a type (FULL uses none of it).
 */
typedef struct ucc_ep_map_t {
    ucc_ep_map_type_t type; /*!< Which union member is valid. */
    uint64_t ep_num;        /*!< Number of mapped endpoints (team size). */
#if defined(__GNUC__) && !defined(__cplusplus)
    /* Anonymous unions are C11; this keeps strict C99 builds quiet. */
    __extension__
#endif
        union {
        struct ucc_ep_map_strided strided; /*!< For UCC_EP_MAP_STRIDED. */
        struct ucc_ep_map_array array;     /*!< For UCC_EP_MAP_ARRAY. */
        struct ucc_ep_map_cb cb;           /*!< For UCC_EP_MAP_CB. */
    };
} ucc_ep_map_t;

/**
 * @ingroup UCC_TEAM_DT
 * @brief Team creation parameters; only fields flagged in @a mask are read.
 */
typedef struct ucc_team_params {
    uint64_t mask;                   /*!< OR of ucc_team_params_field. */
    uint64_t flags;                  /*!< OR of ucc_team_flags. */
    ucc_post_ordering_t ordering;    /*!< Ordering guarantee of collective calls. */
    uint64_t outstanding_colls;      /*!< Expected maximum of in-flight collectives. */
    uint64_t ep;                     /*!< Caller's unique endpoint in the team. */
    uint64_t *ep_list;               /*!< Endpoints that take part in the team. */
    ucc_ep_range_type_t ep_range;    /*!< Whether endpoints are contiguous. */
    uint64_t team_size;              /*!< Number of members. */
    ucc_coll_sync_type_t sync_type;  /*!< Synchronisation model. */
    ucc_team_oob_coll_t oob;         /*!< OOB allgather over the team members. */
    ucc_team_p2p_conn_t p2p_conn;    /*!< Point-to-point connection callbacks. */
    ucc_mem_map_params_t mem_params; /*!< Memory attached to the team. */
    ucc_ep_map_t ep_map;             /*!< Team-to-context endpoint mapping. */
    uint64_t id;                     /*!< Team id, unique among the caller's active teams. */
} ucc_team_params_t;

/**
 * @ingroup UCC_TEAM_DT
 * @brief Team attributes; only fields flagged in @a mask are filled.
 */
typedef struct ucc_team_attr {
    uint64_t mask;                   /*!< OR of ucc_team_attr_field. */
    ucc_post_ordering_t ordering;    /*!< Ordering guarantee. */
    uint64_t outstanding_colls;      /*!< Outstanding collectives limit. */
    uint64_t ep;                     /*!< Caller's endpoint. */
    ucc_ep_range_type_t ep_range;    /*!< Endpoint range kind. */
    ucc_coll_sync_type_t sync_type;  /*!< Synchronisation model. */
    ucc_mem_map_params_t mem_params; /*!< Attached memory. */
    uint32_t size;                   /*!< Number of members. */
    uint64_t *eps;                   /*!< Endpoints of all members (library-owned). */
} ucc_team_attr_t;

/**
 * @ingroup UCC_TEAM
 * @brief Start creating a team (non-blocking collective).
 *
 * The handle becomes usable once ucc_team_create_test() returns UCC_OK.
 *
 * @param [in]  contexts      Contexts providing the resources.
 * @param [in]  num_contexts  Number of entries in @a contexts.
 * @param [in]  team_params   Team parameters.
 * @param [out] new_team      The new team handle.
 * @return UCC_OK if the creation was started, or an error code.
 */
ucc_status_t ucc_team_create_post(ucc_context_h *contexts, uint32_t num_contexts,
                                  const ucc_team_params_t *team_params, ucc_team_h *new_team);

/**
 * @ingroup UCC_TEAM
 * @brief Check whether team creation finished (UCC_OK), is running
 *        (UCC_INPROGRESS) or failed (negative). Never blocks.
 *
 * Progresses the team's context itself, so a loop on this call alone is enough.
 *
 * @param [in] team  Handle from ucc_team_create_post() or ucc_team_create_from_parent().
 * @return UCC_OK when the team is ready; UCC_INPROGRESS while it is being created; the
 *         creation's error when it failed; UCC_ERR_INVALID_PARAM for a NULL or destroyed team.
 */
ucc_status_t ucc_team_create_test(ucc_team_h team);

/**
 * @ingroup UCC_TEAM
 * @brief Destroy a team (non-blocking collective); repeat while it returns
 *        UCC_INPROGRESS.
 *
 * This library finishes in the first call, without communication.
 *
 * @param [in] team  Team to destroy; its creation must have completed.
 * @return UCC_OK; UCC_ERR_INVALID_PARAM for a NULL or destroyed team, a team still being
 *         created, or one with requests that are not finalized.
 */
ucc_status_t ucc_team_destroy(ucc_team_h team);

/**
 * @ingroup UCC_TEAM
 * @brief Query the attributes selected in @a team_attr->mask.
 *
 * @param [in]     team       Team to query.
 * @param [in,out] team_attr  The caller sets mask; the library fills the selected fields.
 * @return UCC_OK; UCC_ERR_INVALID_PARAM for a NULL argument or a team that is not active
 *         (still being created, failed or destroyed).
 */
ucc_status_t ucc_team_get_attr(ucc_team_h team, ucc_team_attr_t *team_attr);

/**
 * @ingroup UCC_TEAM
 * @brief Split a team (non-blocking collective over all parent members).
 *
 * @param [in]  my_ep        Caller's endpoint in the parent team.
 * @param [in]  included     1 to join the new team, 0 to stay out.
 * @param [in]  parent_team  Team being split.
 * @param [out] new_team     The new team handle; finish with ucc_team_create_test().
 * @return UCC_OK if the split was started, or an error code.
 */
ucc_status_t ucc_team_create_from_parent(uint64_t my_ep, uint32_t included, ucc_team_h parent_team,
                                         ucc_team_h *new_team);

/* ******************************************************************** */
/*  Collectives                                                         */
/* ******************************************************************** */

/**
 * @ingroup UCC_COLLECTIVES_DT
 * @brief Flags for ucc_coll_args_t::flags (valid with UCC_COLL_ARGS_FIELD_FLAGS).
 */
typedef enum {
    UCC_COLL_ARGS_FLAG_IN_PLACE = UCC_BIT(0),            /*!< Output buffer is also the input. */
    UCC_COLL_ARGS_FLAG_PERSISTENT = UCC_BIT(1),          /*!< Request may be posted repeatedly. */
    UCC_COLL_ARGS_FLAG_COUNT_64BIT = UCC_BIT(2),         /*!< v-variant counts are 64-bit. */
    UCC_COLL_ARGS_FLAG_DISPLACEMENTS_64BIT = UCC_BIT(3), /*!< v-variant displacements are 64-bit. */
    UCC_COLL_ARGS_FLAG_CONTIG_SRC_BUFFER = UCC_BIT(4),   /*!< Source blocks are contiguous. */
    UCC_COLL_ARGS_FLAG_CONTIG_DST_BUFFER = UCC_BIT(5),   /*!< Destination blocks are contiguous. */
    UCC_COLL_ARGS_FLAG_TIMEOUT = UCC_BIT(6),             /*!< Enforce ucc_coll_args_t::timeout. */
    UCC_COLL_ARGS_FLAG_MEM_MAPPED_BUFFERS = UCC_BIT(7),  /*!< Buffers are in mapped memory. */
    UCC_COLL_ARGS_FLAG_SRC_MEMH_GLOBAL = UCC_BIT(8), /*!< src_memh holds global_memh (>= 1.5). */
    UCC_COLL_ARGS_FLAG_DST_MEMH_GLOBAL = UCC_BIT(9)  /*!< dst_memh holds global_memh (>= 1.5). */
} ucc_coll_args_flags_t;

/**
 * @ingroup UCC_COLLECTIVES_DT
 * @brief Optimisation hints, stored in the same word as ucc_coll_args_flags_t.
 *
 * Hints never change results and may be ignored. Both the original 1.3
 * spelling (OPTMIZE) and the corrected one (OPTIMIZE) are provided.
 */
typedef enum {
    UCC_COLL_ARGS_HINT_OPTIMIZE_OVERLAP_CPU = UCC_BIT(24), /*!< Prefer best CPU overlap. */
    UCC_COLL_ARGS_HINT_OPTIMIZE_OVERLAP_GPU = UCC_BIT(25), /*!< Prefer best GPU overlap. */
    UCC_COLL_ARGS_HINT_OPTIMIZE_LATENCY = UCC_BIT(26),     /*!< Prefer lowest latency. */
    /** API 1.3 spelling of UCC_COLL_ARGS_HINT_OPTIMIZE_OVERLAP_CPU. */
    UCC_COLL_ARGS_HINT_OPTMIZE_OVERLAP_CPU = UCC_COLL_ARGS_HINT_OPTIMIZE_OVERLAP_CPU,
    /** API 1.3 spelling of UCC_COLL_ARGS_HINT_OPTIMIZE_OVERLAP_GPU. */
    UCC_COLL_ARGS_HINT_OPTMIZE_OVERLAP_GPU = UCC_COLL_ARGS_HINT_OPTIMIZE_OVERLAP_GPU,
    /** Same bit as UCC_COLL_ARGS_FLAG_CONTIG_SRC_BUFFER. */
    UCC_COLL_ARGS_HINT_CONTIG_SRC_BUFFER = UCC_COLL_ARGS_FLAG_CONTIG_SRC_BUFFER,
    /** Same bit as UCC_COLL_ARGS_FLAG_CONTIG_DST_BUFFER. */
    UCC_COLL_ARGS_HINT_CONTIG_DST_BUFFER = UCC_COLL_ARGS_FLAG_CONTIG_DST_BUFFER
} ucc_coll_args_hints_t;

/**
 * @ingroup UCC_COLLECTIVES_DT
 * @brief Buffer description for the "v" collectives (one block per member).
 *
 * Entries of @a counts / @a displacements are 32-bit unless the matching
 * *_64BIT flag is set. Displacements count elements from @a buffer.
 */
typedef struct ucc_coll_buffer_info_v {
    void *buffer;               /*!< Start of the buffer. */
    ucc_count_t *counts;        /*!< Element count per member. */
    ucc_aint_t *displacements;  /*!< Offset of each member's block. */
    ucc_datatype_t datatype;    /*!< Element datatype. */
    ucc_memory_type_t mem_type; /*!< Memory type of @a buffer. */
} ucc_coll_buffer_info_v_t;

/**
 * @ingroup UCC_COLLECTIVES_DT
 * @brief Buffer description for the fixed-size collectives.
 */
typedef struct ucc_coll_buffer_info {
    void *buffer;               /*!< Start of the buffer. */
    ucc_count_t count;          /*!< Number of elements in the buffer. */
    ucc_datatype_t datatype;    /*!< Element datatype. */
    ucc_memory_type_t mem_type; /*!< Memory type of @a buffer. */
} ucc_coll_buffer_info_t;

/**
 * @ingroup UCC_COLLECTIVES_DT
 * @brief Scope of error reporting for a collective.
 */
typedef enum {
    UCC_ERR_TYPE_LOCAL = 0, /*!< Report this member's own status. */
    UCC_ERR_TYPE_GLOBAL = 1 /*!< Report a status agreed by all members. */
} ucc_error_type_t;

/**
 * @ingroup UCC_COLLECTIVES_DT
 * @brief Bits of ucc_coll_args_t::mask.
 */
enum ucc_coll_args_field {
    UCC_COLL_ARGS_FIELD_FLAGS = UCC_BIT(0),              /*!< flags is set. */
    UCC_COLL_ARGS_FIELD_TAG = UCC_BIT(1),                /*!< tag is set. */
    UCC_COLL_ARGS_FIELD_CB = UCC_BIT(2),                 /*!< cb is set. */
    UCC_COLL_ARGS_FIELD_GLOBAL_WORK_BUFFER = UCC_BIT(3), /*!< global_work_buffer is set. */
    UCC_COLL_ARGS_FIELD_ACTIVE_SET = UCC_BIT(4),         /*!< active_set is set. */
    UCC_COLL_ARGS_FIELD_MEM_MAP_SRC_MEMH = UCC_BIT(5),   /*!< src_memh is set (>= 1.5). */
    UCC_COLL_ARGS_FIELD_MEM_MAP_DST_MEMH = UCC_BIT(6)    /*!< dst_memh is set (>= 1.5). */
};

/**
 * @ingroup UCC_COLLECTIVES
 * @brief Full description of one collective operation.
 *
 * @a coll_type is always required; which buffers, @a op and @a root are
 * needed depends on the type. Optional fields are read only when their
 * bit is set in @a mask.
 */
typedef struct ucc_coll_args {
    uint64_t mask;             /*!< OR of ucc_coll_args_field. */
    ucc_coll_type_t coll_type; /*!< Which collective. */
    union {
        ucc_coll_buffer_info_t info;     /*!< Fixed-size description. */
        ucc_coll_buffer_info_v_t info_v; /*!< Per-member description. */
    } src;                               /*!< Source buffer. */
    union {
        ucc_coll_buffer_info_t info;     /*!< Fixed-size description. */
        ucc_coll_buffer_info_v_t info_v; /*!< Per-member description. */
    } dst;                               /*!< Destination buffer. */
    ucc_reduction_op_t op;               /*!< Reduction for predefined datatypes. */
    uint64_t flags;                      /*!< ucc_coll_args_flags_t and hint bits. */
    uint64_t root;                       /*!< Root endpoint of rooted collectives. */
    ucc_error_type_t error_type;         /*!< Local or global error reporting. */
    ucc_coll_id_t tag;                   /*!< Matching tag for unordered teams. */
    void *global_work_buffer;            /*!< Zeroed scratch space for one-sided algorithms. */
    ucc_coll_callback_t cb;              /*!< Completion callback. */
    double timeout;                      /*!< Time limit in seconds (FLAG_TIMEOUT). */
    struct {
        uint64_t start; /*!< First team endpoint in the set. */
        int64_t stride; /*!< Distance between consecutive endpoints. */
        uint64_t size;  /*!< Number of endpoints in the set. */
    } active_set;       /*!< Subset of the team taking part. */
    union {
        ucc_mem_map_mem_h local_memh;   /*!< Handle of the caller's own memory. */
        ucc_mem_map_mem_h *global_memh; /*!< One handle per team member. */
    } src_memh;                         /*!< Mapped-memory handle of src (>= 1.5). */
    union {
        ucc_mem_map_mem_h local_memh;   /*!< Handle of the caller's own memory. */
        ucc_mem_map_mem_h *global_memh; /*!< One handle per team member. */
    } dst_memh;                         /*!< Mapped-memory handle of dst (>= 1.5). */
} ucc_coll_args_t;

/**
 * @ingroup UCC_COLLECTIVES
 * @brief Prepare a collective (called by every member; never waits for peers).
 *
 * @param [in]  coll_args  Description of the operation.
 * @param [out] request    New request in state UCC_OPERATION_INITIALIZED.
 * @param [in]  team       Team to run on.
 * @return UCC_OK, or an error code with no request created.
 */
ucc_status_t ucc_collective_init(ucc_coll_args_t *coll_args, ucc_coll_req_h *request,
                                 ucc_team_h team);

/**
 * @ingroup UCC_COLLECTIVES
 * @brief Start an initialised collective (local).
 *
 * On error the request must still be released with ucc_collective_finalize().
 *
 * @param [in] request  Request from ucc_collective_init().
 * @return UCC_OK once posted (completion is then seen through ucc_collective_test() or the
 *         callback); UCC_ERR_INVALID_PARAM for a NULL request or one that is neither initialised
 *         nor a completed persistent request; the team's error if the team has failed.
 */
ucc_status_t ucc_collective_post(ucc_coll_req_h request);

/**
 * @ingroup UCC_COLLECTIVES
 * @brief ucc_collective_init() followed by ucc_collective_post().
 *
 * @param [in]  coll_args  Description of the operation.
 * @param [out] request    The new, posted request.
 * @param [in]  team       Team to run on.
 * @return As ucc_collective_init(), then as ucc_collective_post(); when the post fails the
 *         request is released and @a request set to NULL.
 */
ucc_status_t ucc_collective_init_and_post(ucc_coll_args_t *coll_args, ucc_coll_req_h *request,
                                          ucc_team_h team);

/**
 * @ingroup UCC_COLLECTIVES
 * @brief Current status of a request; makes no progress by itself.
 *
 * @param [in] request  Request from ucc_collective_init(); must not be NULL.
 * @return UCC_OPERATION_INITIALIZED before the post; UCC_INPROGRESS while running; UCC_OK when
 *         complete; a negative error code when the collective failed.
 */
static inline ucc_status_t ucc_collective_test(ucc_coll_req_h request) {
    return request->status;
}

/**
 * @ingroup UCC_COLLECTIVES
 * @brief Release a request; it must not be in progress.
 *
 * @param [in] request  Request to release.
 * @return UCC_OK; UCC_ERR_INVALID_PARAM for a NULL request or one still in progress.
 */
ucc_status_t ucc_collective_finalize(ucc_coll_req_h request);

/* ******************************************************************** */
/*  Execution engines and events                                        */
/* ******************************************************************** */

/**
 * @ingroup UCC_EVENT_DT
 * @brief Kinds of execution-engine events.
 */
typedef enum ucc_event_type {
    UCC_EVENT_COLLECTIVE_POST = UCC_BIT(0),     /*!< A triggered collective was posted. */
    UCC_EVENT_COLLECTIVE_COMPLETE = UCC_BIT(1), /*!< A collective completed. */
    UCC_EVENT_COMPUTE_COMPLETE = UCC_BIT(2),    /*!< User computation finished. */
    UCC_EVENT_OVERFLOW = UCC_BIT(3)             /*!< An event queue overflowed. */
} ucc_event_type_t;

/**
 * @ingroup UCC_EVENT_DT
 * @brief Kinds of execution engines.
 */
typedef enum ucc_ee_type {
    UCC_EE_FIRST = 0,                  /*!< First valid value. */
    UCC_EE_CUDA_STREAM = UCC_EE_FIRST, /*!< CUDA stream. */
    UCC_EE_CPU_THREAD,                 /*!< CPU thread. */
    UCC_EE_ROCM_STREAM,                /*!< ROCm stream. */
    UCC_EE_LAST,                       /*!< Number of kinds. */
    UCC_EE_UNKNOWN = UCC_EE_LAST       /*!< Not a valid kind. */
} ucc_ee_type_t;

/**
 * @ingroup UCC_EVENT_DT
 * @brief An execution-engine event.
 */
typedef struct ucc_event {
    ucc_event_type_t ev_type; /*!< What happened. */
    void *ev_context;         /*!< Event-specific data. */
    size_t ev_context_size;   /*!< Size of @a ev_context in bytes. */
    ucc_coll_req_h req;       /*!< Related request, if any. */
} ucc_ev_t;

/**
 * @ingroup UCC_EVENT_DT
 * @brief Execution-engine creation parameters.
 */
typedef struct ucc_ee_params {
    ucc_ee_type_t ee_type;  /*!< Kind of engine. */
    void *ee_context;       /*!< Engine object (e.g. the stream value). */
    size_t ee_context_size; /*!< Size of @a ee_context in bytes. */
} ucc_ee_params_t;

/**
 * @ingroup UCC_EVENT
 * @brief Create an execution engine bound to @a team.
 *
 * This build has CPU-thread engines (UCC_EE_CPU_THREAD): collectives triggered
 * on one start when an event set with ucc_ee_set_event() reaches them, in the
 * team's context's progress. The engine is local; a team may have several.
 *
 * @param [in]  team    Team the engine serves (its creation complete).
 * @param [in]  params  Kind and object of the engine.
 * @param [out] ee      The new engine handle.
 * @return UCC_OK; UCC_ERR_INVALID_PARAM for a NULL argument, an ee_type not
 *         below UCC_EE_LAST or a team not active; UCC_ERR_NOT_SUPPORTED for
 *         UCC_EE_CUDA_STREAM and UCC_EE_ROCM_STREAM; UCC_ERR_NO_MEMORY.
 */
ucc_status_t ucc_ee_create(ucc_team_h team, const ucc_ee_params_t *params, ucc_ee_h *ee);

/**
 * @ingroup UCC_EVENT
 * @brief Destroy an execution engine (same thread as its creation, before its team).
 *
 * Its events are freed; a request still waiting for its trigger completes with
 * UCC_ERR_CANCELED (the user finalizes it). An engine whose team was destroyed
 * first may still be destroyed.
 *
 * @param [in] ee  Engine to destroy.
 * @return UCC_OK; UCC_ERR_INVALID_PARAM for a NULL argument.
 */
ucc_status_t ucc_ee_destroy(ucc_ee_h ee);

/**
 * @ingroup UCC_EVENT
 * @brief Take the next library event without waiting; acknowledge it later.
 *
 * The library emits UCC_EVENT_COLLECTIVE_POST (req set) when a triggered
 * collective starts, and UCC_EVENT_OVERFLOW in place of further events once
 * 4,096 are left untaken.
 *
 * @param [in]  ee  Engine to poll.
 * @param [out] ev  The event taken; valid until ucc_ee_ack_event().
 * @return UCC_OK; UCC_ERR_NOT_FOUND when no event is queued;
 *         UCC_ERR_INVALID_PARAM for a NULL argument.
 */
ucc_status_t ucc_ee_get_event(ucc_ee_h ee, ucc_ev_t **ev);

/**
 * @ingroup UCC_EVENT
 * @brief Acknowledge (and let the library free) an event from ucc_ee_get_event().
 *
 * @param [in] ee  Engine the event came from.
 * @param [in] ev  Event to acknowledge.
 * @return UCC_OK; UCC_ERR_INVALID_PARAM for a NULL argument, or an event this
 *         engine did not hand out or that was acknowledged already.
 */
ucc_status_t ucc_ee_ack_event(ucc_ee_h ee, ucc_ev_t *ev);

/**
 * @ingroup UCC_EVENT
 * @brief Append a user event to the engine's input queue.
 *
 * The event is copied (the caller keeps its own). At the context's next
 * progress, the first request waiting on the engine takes the first queued
 * event and starts; an event with no request waiting stays queued for the
 * next triggered post.
 *
 * @param [in] ee  Engine to signal.
 * @param [in] ev  Event to append.
 * @return UCC_OK; UCC_ERR_INVALID_PARAM for a NULL argument or an engine whose
 *         team was destroyed.
 */
ucc_status_t ucc_ee_set_event(ucc_ee_h ee, ucc_ev_t *ev);

/**
 * @ingroup UCC_EVENT
 * @brief Progress the engine's context until the library emits an event.
 *
 * The event is copied into @a ev and acknowledged here (a single pointer
 * cannot hand the library's event itself back). When no event can arrive (no
 * triggered post waits on the engine, or, outside UCC_THREAD_MULTIPLE, none
 * has an input event to fire it) it returns at once instead of waiting forever.
 *
 * @param [in]  ee  Engine to wait on.
 * @param [out] ev  Receives a copy of the event.
 * @return UCC_OK; UCC_ERR_NOT_FOUND when no event can arrive;
 *         UCC_ERR_INVALID_PARAM for a NULL argument.
 */
ucc_status_t ucc_ee_wait(ucc_ee_h ee, ucc_ev_t *ev);

/**
 * @ingroup UCC_EVENT
 * @brief Schedule @a ee_event->req to start when an event is set on @a ee.
 *
 * The request stays UCC_OPERATION_INITIALIZED until its trigger, then runs as
 * if ucc_collective_post() had been called; the engine emits
 * UCC_EVENT_COLLECTIVE_POST. A timeout counts from this call. Requests
 * waiting on one engine take its input events in the order they were posted.
 *
 * @param [in] ee        Engine the trigger belongs to.
 * @param [in] ee_event  Trigger (ev_type UCC_EVENT_COMPUTE_COMPLETE); its req is
 *                       an initialised request of the engine's team.
 * @return UCC_OK; UCC_ERR_INVALID_PARAM for a NULL argument or req, a request
 *         of another team, one not postable (or already waiting); UCC_ERR_NOT_SUPPORTED
 *         for another ev_type; the team's error if it has failed.
 */
ucc_status_t ucc_collective_triggered_post(ucc_ee_h ee, ucc_ev_t *ee_event);

END_C_DECLS

#endif /* UCC_H_ */
