import Foundation
import Basics
import XCTest

/// Parses JSON text written in a test into a `JSONValue` (integers stay `.int`).
public func parseJSON(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> JSONValue {
    do {
        return try JSONValue.parse(Data(text.utf8))
    } catch {
        XCTFail("test JSON does not parse: \(error)", file: file, line: line)
        return .null
    }
}
