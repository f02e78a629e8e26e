// The records tests' fixtures (tests/records/fixtures): the folder, MESHSCOPE_RECORDS_FIXTURES when set (the
// fixtures made by real torch at test time), and a file's bytes.
#pragma once

#include <QByteArray>
#include <QFile>
#include <QString>
#include <QtGlobal>

#include <string>

inline QString fixtures() {
    const QByteArray env = qgetenv("MESHSCOPE_RECORDS_FIXTURES");
    return env.isEmpty() ? QStringLiteral(RECORDS_FIXTURES) : QString::fromLocal8Bit(env);
}

// The file's bytes; empty when it cannot be read.
inline std::string read_file(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    const QByteArray bytes = f.readAll();
    return std::string(bytes.constData(), static_cast<std::size_t>(bytes.size()));
}
