import Glibc

/// localtime_r(3) and strftime(3): Unix `seconds` as local time in `format`
/// (at most 63 bytes of text); nil if the time cannot be converted.
public func localTimeText(_ seconds: Int64, format: String) -> String? {
    var value = time_t(seconds)
    var parts = tm()
    guard localtime_r(&value, &parts) != nil else { return nil }
    var buffer = [CChar](repeating: 0, count: 64)
    let count = strftime(&buffer, buffer.count, format, &parts)
    return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
