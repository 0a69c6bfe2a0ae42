/**
 * @file ucc_def.h
 * @brief Basic UCC handle types, helper macros and small enums (UCC API v1.3).
 */

#ifndef UCC_DEF_H_
#define UCC_DEF_H_

#include <stddef.h>
#include <stdint.h>
#include <ucc/api/ucc_status.h>

BEGIN_C_DECLS

/** Value with only bit @a i set (unsigned long). */
#define UCC_BIT(i) (1ul << (i))

/** Value with the low @a i bits set. */
#define UCC_MASK(i) (UCC_BIT(i) - 1)

/**
 * @ingroup UCC_LIB_INIT_DT
 * @brief Opaque handle of an initialised library instance.
 *
 * Handles from one library instance must not be used with another.
 */
typedef struct ucc_lib_info *ucc_lib_h;

/**
 * @ingroup UCC_CONTEXT_DT
 * @brief Opaque handle of a communication context (local network resources).
 */
typedef struct ucc_context *ucc_context_h;

/**
 * @ingroup UCC_TEAM_DT
 * @brief Opaque handle of a team (a group of endpoints running collectives).
 */
typedef struct ucc_team *ucc_team_h;

/**
 * @ingroup UCC_COLLECTIVES_DT
 * @brief Handle of an initialised collective operation.
 */
typedef struct ucc_coll_req *ucc_coll_req_h;

/**
 * @ingroup UCC_COLLECTIVES_DT
 * @brief Public head of every collective request.
 *
 * The library keeps @a status current so that the inline
 * ucc_collective_test() can simply read it.
 */
typedef struct ucc_coll_req {
    ucc_status_t status; /*!< Current state of the request. */
} ucc_coll_req_t;

/**
 * @ingroup UCC_COLLECTIVES_DT
 * @brief Completion notification for a collective.
 *
 * @a cb is called once with @a data and the final status. Inside it the only
 * UCC call allowed is ucc_collective_finalize().
 */
typedef struct ucc_coll_callback {
    void (*cb)(void *data, ucc_status_t status); /*!< Function to call. */
    void *data;                                  /*!< Passed back to @a cb. */
} ucc_coll_callback_t;

/**
 * @ingroup UCC_COLLECTIVES
 * @brief Opaque memory handle (declared for source compatibility; no API uses it).
 */
typedef struct ucc_mem_handle *ucc_mem_h;

/**
 * @ingroup UCC_LIB_INIT_DT
 * @brief Opaque library configuration descriptor.
 */
typedef struct ucc_lib_config *ucc_lib_config_h;

/**
 * @ingroup UCC_CONTEXT_DT
 * @brief Opaque context configuration descriptor.
 */
typedef struct ucc_context_config *ucc_context_config_h;

/**
 * @ingroup UCC_COLLECTIVES_DT
 * @brief Element count (wide enough for large messages).
 */
typedef uint64_t ucc_count_t;

/**
 * @ingroup UCC_COLLECTIVES_DT
 * @brief Displacement / offset value.
 */
typedef uint64_t ucc_aint_t;

/**
 * @ingroup UCC_UTILS
 * @brief Options for the configuration print routines (bitwise OR).
 */
typedef enum {
    UCC_CONFIG_PRINT_CONFIG = UCC_BIT(0), /*!< Print the values. */
    UCC_CONFIG_PRINT_HEADER = UCC_BIT(1), /*!< Print a title header. */
    UCC_CONFIG_PRINT_DOC = UCC_BIT(2),    /*!< Print each variable's description. */
    UCC_CONFIG_PRINT_HIDDEN = UCC_BIT(3)  /*!< Include hidden variables. */
} ucc_config_print_flags_t;

/**
 * @ingroup UCC_COLLECTIVES_DT
 * @brief Tag used to match collectives on unordered teams.
 */
typedef uint16_t ucc_coll_id_t;

/**
 * @ingroup UCC_TEAM_DT
 * @brief Opaque point-to-point connection information.
 */
typedef void *ucc_p2p_conn_t;

/**
 * @ingroup UCC_CONTEXT_DT
 * @brief Serialisable address of a context.
 */
typedef void *ucc_context_addr_h;

/**
 * @ingroup UCC_CONTEXT_DT
 * @brief Length in bytes of a context address.
 */
typedef size_t ucc_context_addr_len_t;

/**
 * @ingroup UCC_EVENT_DT
 * @brief Opaque handle of an execution engine (stream or thread) and its queues.
 */
typedef struct ucc_ee *ucc_ee_h;

/**
 * @ingroup UCC_DATATYPE
 * @brief Opaque descriptor of a user-defined (generic) datatype.
 */
typedef struct ucc_dt_generic ucc_dt_generic_t;

/**
 * @ingroup UCC_DATATYPE
 * @brief Encoding of the class of a ucc_datatype_t value.
 *
 * The low UCC_DATATYPE_SHIFT bits hold the class: predefined types keep them
 * zero and carry their id above; generic types are tagged pointers.
 */
typedef enum {
    UCC_DATATYPE_PREDEFINED = 0,                           /*!< Class of predefined types. */
    UCC_DATATYPE_GENERIC = UCC_BIT(0),                     /*!< Class of generic types. */
    UCC_DATATYPE_SHIFT = 3,                                /*!< Width of the class field. */
    UCC_DATATYPE_CLASS_MASK = UCC_MASK(UCC_DATATYPE_SHIFT) /*!< Class field mask. */
} ucc_dt_type_t;

/** Build the ucc_datatype_t value of predefined type number @a _id. */
#define UCC_PREDEFINED_DT(_id) \
    (ucc_datatype_t)((((uint64_t)(_id)) << UCC_DATATYPE_SHIFT) | (UCC_DATATYPE_PREDEFINED))

END_C_DECLS

#endif /* UCC_DEF_H_ */
