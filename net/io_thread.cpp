#include "io_thread.h"

#include <boost/asio/post.hpp>

#include <utility>

#include "thread_name.h"

namespace meshscope::net {

IoThread::IoThread(std::string name) : name_(std::move(name)) {}

IoThread::~IoThread() {
    stop();
}

void IoThread::start() {
    if (started_) return;
    started_ = true;
    guard_.emplace(io_.get_executor());
    thread_ = std::thread([this] {
        const std::string name = name_.substr(0, 15);
        name_this_thread(name.c_str());
        io_.run();
    });
}

void IoThread::stop() {
    if (!thread_.joinable()) return;
    if (std::this_thread::get_id() == thread_.get_id()) {
        io_.stop();
        return;
    }
    // Behind what is already queued: an owner's closes posted before stop() still run.
    boost::asio::post(io_, [this] { io_.stop(); });
    release_and_join();
}

void IoThread::join() {
    if (!thread_.joinable() || std::this_thread::get_id() == thread_.get_id()) return;
    release_and_join();
}

void IoThread::release_and_join() {
    boost::asio::post(io_, [this] { guard_.reset(); });
    thread_.join();
    guard_.reset();
}

}  // namespace meshscope::net
