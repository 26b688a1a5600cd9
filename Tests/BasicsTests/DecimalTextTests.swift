import Basics
import XCTest

final class DecimalTextTests: XCTestCase {
    func testDecimalDigitsAreTheStringForm() {
        for value: Int64 in [0, 7, -7, 10, 1_234_567_890, Int64.max, Int64.min] {
            var output = Array("x".utf8)
            output.appendDecimal(value)
            XCTAssertEqual(String(decoding: output, as: UTF8.self), "x\(value)")
        }
        var output: [UInt8] = []
        output.appendDecimal(UInt64.max)
        XCTAssertEqual(String(decoding: output, as: UTF8.self), String(UInt64.max))
    }
}
