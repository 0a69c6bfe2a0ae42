// A strict, bounded JSON reader for trace lines (RFC 8259): objects, arrays,
// strings (escapes and \u surrogate pairs to UTF-8), numbers (integers kept
// exact in 64 bits, others as doubles), true, false, null. Depth and sizes
// are bounded, and every malformed input gets a message naming the column:
// the trace reader's fuzzed front door.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ucc::traces::json {

struct Field;

struct Value {
    enum class Type : uint8_t { kNull, kBool, kNumber, kString, kArray, kObject };
    Type type = Type::kNull;
    bool boolean = false;
    // Numbers: `integer` when written without fraction or exponent and in
    // [-2^63, 2^64); then `negative` tells which of u (>= 0) or i (< 0) holds it.
    bool integer = false;
    bool negative = false;
    uint64_t u = 0;
    int64_t i = 0;
    double d = 0;
    std::string str;
    std::vector<Value> items;   // array
    std::vector<Field> fields;  // object, in order

    // The field `key` of an object (the first, if repeated), or nullptr.
    const Value *get(std::string_view key) const;
};

struct Field {
    std::string key;
    Value value;
};

inline constexpr int kMaxDepth = 32;
// Values (numbers, strings, ... of every depth) in one text.
inline constexpr size_t kMaxValues = size_t{1} << 22;

// Parses exactly one JSON value (with surrounding white space) from `text`.
// False and *error ("column C: why") when it is not one.
bool parse(std::string_view text, Value *out, std::string *error);

}  // namespace ucc::traces::json
