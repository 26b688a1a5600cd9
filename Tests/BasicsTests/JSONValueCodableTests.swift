import Basics
import Foundation
import XCTest

/// `JSONValue` read by Codable's decoder is the value the text holds: integers apart from
/// fractions, whatever the nesting.
final class JSONValueCodableTests: XCTestCase {
    func testEveryKindOfValueDecodesAsItIs() throws {
        for text in ["7", "1.5", "1e300", "-3", "\"x\"", "true", "null", "[1, 2.5]", #"{"z": [false]}"#] {
            do {
                let value = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
                XCTAssertEqual(value, try JSONValue.parse(Data(text.utf8)), text)
            } catch {
                XCTFail("\(text): \(error)")
            }
        }
    }
}
