#include "meshscope/error.h"

namespace meshscope {

std::string_view python_name(ErrorType type) noexcept {
    switch (type) {
        case ErrorType::value_error: return "ValueError";
        case ErrorType::runtime_error: return "RuntimeError";
        case ErrorType::key_error: return "KeyError";
        case ErrorType::assertion_error: return "AssertionError";
    }
    return "Error";
}

void throw_error(const Error& error) {
    switch (error.type()) {
        case ErrorType::value_error: throw ValueError(error.message());
        case ErrorType::runtime_error: throw RuntimeError(error.message());
        case ErrorType::key_error: throw KeyError(error.message());
        case ErrorType::assertion_error: throw AssertionError(error.message());
    }
    throw error;
}

}  // namespace meshscope
