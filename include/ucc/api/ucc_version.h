/**
 * @file ucc_version.h
 * @brief Compile-time version of the UCC API these headers describe.
 */

#ifndef UCC_VERSION_H_
#define UCC_VERSION_H_

/** Bit position of the major number inside a packed version value. */
#define UCC_VERSION_MAJOR_SHIFT 24
/** Bit position of the minor number inside a packed version value. */
#define UCC_VERSION_MINOR_SHIFT 16

/** Pack a (major, minor) pair into one integer that compares in order. */
#define UCC_VERSION(_major, _minor) \
    (((_major) << UCC_VERSION_MAJOR_SHIFT) | ((_minor) << UCC_VERSION_MINOR_SHIFT))

/** Major number of the API a program is compiled against. */
#define UCC_API_MAJOR 1
/** Minor number of the API a program is compiled against. */
#define UCC_API_MINOR 3
/** Packed form of UCC_API_MAJOR / UCC_API_MINOR. */
#define UCC_API_VERSION UCC_VERSION(1, 3)
/** "major.minor.patch" of this implementation. */
#define UCC_VERSION_STRING "1.3.0"
/** Source revision identifier of this implementation. */
#define UCC_GIT_REVISION "ucc-cpp"

#endif /* UCC_VERSION_H_ */
