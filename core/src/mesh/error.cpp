#include "meshscope/mesh/error.h"

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

std::string_view to_string(Input input) noexcept {
    switch (input) {
        case Input::none: return "";
        case Input::dp: return "dp";
        case Input::world: return "world";
        case Input::cp: return "cp";
        case Input::ep: return "ep";
        case Input::mp_replicate: return "mp_replicate";
        case Input::mp_shard: return "mp_shard";
        case Input::gpus_per_node: return "gpus_per_node";
        case Input::experts: return "experts";
        case Input::hardware: return "hardware";
        case Input::network: return "network";
    }
    return "";
}

void throw_error(const Error& error) {
    switch (error.type()) {
        case ErrorType::value_error: throw ValueError(error.message(), error.input(), error.rule());
        case ErrorType::runtime_error: throw RuntimeError(error.message());
        case ErrorType::key_error: throw KeyError(error.message());
        case ErrorType::assertion_error: throw AssertionError(error.message());
    }
    throw error;
}

}  // namespace meshscope
