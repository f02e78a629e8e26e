#include "listen_address.h"

namespace meshscope::app {

Expected<ListenAddress> parse_listen_address(const std::string& text) {
    const auto bad = [&] { return ValueError("--listen must be HOST:PORT, got '" + text + "'"); };
    const auto colon = text.rfind(':');
    if (colon == std::string::npos || colon == 0) return bad();
    std::string host = text.substr(0, colon);
    const std::string port_text = text.substr(colon + 1);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    bool ok = false;
    const uint port = QString::fromStdString(port_text).toUInt(&ok);
    if (!ok || port > 65535) return bad();
    ListenAddress address;
    address.port = static_cast<quint16>(port);
    if (host == "localhost") {
        address.host = QHostAddress(QHostAddress::LocalHost);
    } else if (host == "*" || host == "0.0.0.0") {
        address.host = QHostAddress(QHostAddress::AnyIPv4);
    } else if (!address.host.setAddress(QString::fromStdString(host))) {
        return ValueError("--listen: unknown host '" + host + "' (give an IP address)");
    }
    return address;
}

}  // namespace meshscope::app
