/**
 * @file ucc_status.h
 * @brief Status codes returned by every UCC entry point (UCC API v1.3).
 *
 * Part of a from-scratch implementation of the UCC C API. Names and numeric
 * values match the published UCC headers so that existing programs compile
 * unchanged.
 */

#ifndef UCC_STATUS_H_
#define UCC_STATUS_H_

/*
 * BEGIN_C_DECLS / END_C_DECLS wrap every declaration so that the symbols keep
 * C linkage when the headers are included from C++. The same spelling is used
 * by UCX, so identical redefinitions are harmless; the guard avoids even that.
 */
#ifndef BEGIN_C_DECLS
#ifdef __cplusplus
#define BEGIN_C_DECLS extern "C" {
#define END_C_DECLS }
#else
#define BEGIN_C_DECLS
#define END_C_DECLS
#endif
#endif

BEGIN_C_DECLS

/**
 * @ingroup UCC_UTILS
 * @brief Result of a UCC call or state of a request.
 *
 * Non-negative values are not errors; negative values are errors.
 * UCC_ERR_CANCELED is this library's extension (the reference has no such
 * value): a request still in progress when its team or context was destroyed
 * completes with it; finalize it as any completed request.
 */
typedef enum {
    UCC_OK = 0,                    /*!< Done, no error. */
    UCC_INPROGRESS = 1,            /*!< Posted and still running. */
    UCC_OPERATION_INITIALIZED = 2, /*!< Initialised, not posted yet. */

    UCC_ERR_NOT_SUPPORTED = -1,   /*!< Valid request the library cannot serve. */
    UCC_ERR_NOT_IMPLEMENTED = -2, /*!< Entry point or feature not implemented. */
    UCC_ERR_INVALID_PARAM = -3,   /*!< An argument or the object state is wrong. */
    UCC_ERR_NO_MEMORY = -4,       /*!< Allocation failed. */
    UCC_ERR_NO_RESOURCE = -5,     /*!< A needed resource is unavailable. */
    UCC_ERR_NO_MESSAGE = -6,      /*!< Generic failure with no specific cause. */
    UCC_ERR_NOT_FOUND = -7,       /*!< Looked-up item does not exist. */
    UCC_ERR_TIMED_OUT = -8,       /*!< Operation exceeded its time limit. */
    UCC_ERR_IO_ERROR = -9,        /*!< Input/output failure (API >= 1.7). */
    UCC_ERR_CANCELED = -50,       /*!< Extension: team/context destroyed first. */
    UCC_ERR_LAST = -100           /*!< Sentinel; not a real status. */
} ucc_status_t;

/**
 * @ingroup UCC_UTILS
 * @brief Human-readable text for a status code.
 *
 * @param [in] status  Any value; unknown values give a generic message.
 * @return A string owned by the library; the caller must not free it.
 */
const char *ucc_status_string(ucc_status_t status);

END_C_DECLS

#endif /* UCC_STATUS_H_ */
