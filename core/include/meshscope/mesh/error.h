// Errors are part of the API: every message is exact text that tests compare character for character.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace meshscope {

// The Python exception class the original code raises for this error, so that messages read the same
// in MeshScope as in the training log ("ValueError: ep_size must be positive, got 0."). AssertionError is
// what TorchTitan's ParallelDims raises for a world its degrees do not multiply to (peer_layout.h).
enum class ErrorType { value_error, runtime_error, key_error, assertion_error };

[[nodiscard]] std::string_view python_name(ErrorType type) noexcept;

// The input a person typed that an error is about, set where the check is made, so that every front end marks
// that input and offers values for it without reading the message.
enum class Input { none, dp, world, cp, ep, mp_replicate, mp_shard, gpus_per_node, experts, hardware, network };
// The rule the input breaks.
enum class Rule {
    none,
    given,     // missing: `give dp or world`
    positive,  // `ep_size must be positive, got 0.`
    divides,   // `dp_size must be divisible by ep_size, got 16 % 3 != 0.`
    equals,    // a product that must equal the world: `dp_size * cp_size must equal to world_size, ...`
    maximum,   // larger than a tool handles: `world_size (2 * 1099511627776) exceeds the supported maximum of ...`
    known,     // not a name the tool knows: `unknown network 'eth'; known: ndr, hdr`
};

// "dp", "world", "cp", "ep", "mp_replicate", "mp_shard", "gpus_per_node", "experts", "hardware", "network";
// "" for none. The names the CLI's hints, the plan API's "field" and the QML planner use.
[[nodiscard]] std::string_view to_string(Input input) noexcept;

class Error : public std::runtime_error {
public:
    Error(ErrorType type, const std::string& message, Input input = Input::none, Rule rule = Rule::none)
        : std::runtime_error(message), type_(type), input_(input), rule_(rule) {}
    [[nodiscard]] ErrorType type() const noexcept { return type_; }
    [[nodiscard]] std::string message() const { return what(); }
    [[nodiscard]] Input input() const noexcept { return input_; }
    [[nodiscard]] Rule rule() const noexcept { return rule_; }

private:
    ErrorType type_;
    Input input_;
    Rule rule_;
};

class ValueError : public Error {
public:
    explicit ValueError(const std::string& message, Input input = Input::none, Rule rule = Rule::none)
        : Error(ErrorType::value_error, message, input, rule) {}
};

class RuntimeError : public Error {
public:
    explicit RuntimeError(const std::string& message) : Error(ErrorType::runtime_error, message) {}
};

class KeyError : public Error {
public:
    explicit KeyError(const std::string& message) : Error(ErrorType::key_error, message) {}
};

class AssertionError : public Error {
public:
    explicit AssertionError(const std::string& message) : Error(ErrorType::assertion_error, message) {}
};

// Throws the subclass that matches error.type() (input and rule kept), so `catch (const ValueError&)` works on
// rethrown errors.
[[noreturn]] void throw_error(const Error& error);

// A value or the typed error that prevented it: factories return this instead of half-built objects.
template <typename T>
class Expected {
public:
    Expected(T value) : state_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
    Expected(Error error) : state_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

    [[nodiscard]] bool has_value() const noexcept { return std::holds_alternative<T>(state_); }
    explicit operator bool() const noexcept { return has_value(); }

    // Returns the value or throws the error (as its typed subclass).
    [[nodiscard]] const T& value() const& {
        if (!has_value()) throw_error(std::get<Error>(state_));
        return std::get<T>(state_);
    }
    [[nodiscard]] T&& value() && {
        if (!has_value()) throw_error(std::get<Error>(state_));
        return std::get<T>(std::move(state_));
    }
    [[nodiscard]] const Error& error() const { return std::get<Error>(state_); }
    const T* operator->() const { return &value(); }
    const T& operator*() const& { return value(); }

private:
    std::variant<T, Error> state_;
};

}  // namespace meshscope
