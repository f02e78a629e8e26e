// The QHttpServer (Qt 6.4, technology preview) baseline the collector was measured against: it answers
// POST /api/v1/events with {"accepted": N} after parsing the body, and stores nothing. If even this cannot
// hold the load target, QHttpServer cannot carry the collector (docs/libraries.md).
#include <QCoreApplication>
#include <QHttpServer>
#include <QHttpServerResponse>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <cstdio>

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    const quint16 wanted = argc > 1 ? static_cast<quint16>(QByteArray(argv[1]).toUShort()) : 0;
    QHttpServer server;
    server.route("/api/v1/events", QHttpServerRequest::Method::Post, [](const QHttpServerRequest& request) {
        const QJsonDocument doc = QJsonDocument::fromJson(request.body());
        const qsizetype n = doc.isArray() ? doc.array().size() : (doc.isObject() ? 1 : 0);
        if (n == 0)
            return QHttpServerResponse(QJsonObject{{"error", "bad body"}}, QHttpServerResponse::StatusCode::BadRequest);
        return QHttpServerResponse(QJsonObject{{"accepted", n}});
    });
    const quint16 port = server.listen(QHostAddress::LocalHost, wanted);
    if (!port) return 1;
    std::printf("listening on 127.0.0.1:%u\n", port);
    std::fflush(stdout);
    return app.exec();
}
