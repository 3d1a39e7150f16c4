import CardReaderKit
import CardReaderService
import GRPCCore
import GRPCProtobuf
import Testing

/// The SDK's failures as a client reads them: a gRPC code its retry logic can act on, and
/// the ErrorInfo the contract documents (readers.proto).
@Suite struct ServiceFailureTests {
    func info(_ status: GoogleRPCStatus) throws -> ErrorDetails.ErrorInfo {
        try #require(status.details.first?.errorInfo)
    }

    @Test func aCardsStatusWordAndTheReadersStatusAreInTheMetadata() throws {
        let refused = ServiceFailure.from(.cardRefused(step: "SELECT", StatusWord(sw1: 0x6A, sw2: 0x82)), reader: "lane-1")
        let metadata = try info(refused).metadata
        #expect(metadata["status_word"] == "6A82")
        #expect(metadata["reader"] == "lane-1")
        #expect(try info(refused).domain == "cardreader.v1")
        let badSwipe = ServiceFailure.from(.badSwipe, reader: "lane-1")
        #expect(badSwipe.code == .aborted)
        #expect(try info(badSwipe).reason == "bad-swipe")
        #expect(try info(badSwipe).metadata["reader_status"] == "0x03")
    }

    @Test(arguments: [
        (CardReaderError.notConnected, RPCError.Code.unavailable), (.cardholderTimeout(.readMagneticStripe), .deadlineExceeded),
        (.noCard, .failedPrecondition), (.invalidRequest("no"), .invalidArgument), (.cancelled, .cancelled),
    ])
    func eachFailureHasTheCodeItsRetryNeeds(error: CardReaderError, code: RPCError.Code) {
        #expect(ServiceFailure.from(error, reader: "lane-1").code == code)
    }

    /// A call the client's deadline cancelled is DEADLINE_EXCEEDED, not its own cancel.
    @Test func aCancelPastTheDeadlineIsDeadlineExceeded() throws {
        let status = ServiceFailure.from(.cancelled, reader: "lane-1", pastDeadline: true)
        #expect(status.code == .deadlineExceeded)
        #expect(try info(status).reason == "cancelled")
    }

    /// No error message or metadata carries card data: the SDK's errors hold none, and the
    /// daemon adds only names, codes and fixes.
    @Test func aRefusedRevealSaysWhoAndHowToAllowIt() throws {
        let caller = Caller(identity: .localUser(name: "pos", uid: 1001, processID: 42))
        let status = ServiceFailure.revealRefused("lane-1", to: caller, what: "a swipe unmasked")
        #expect(status.code == .permissionDenied)
        #expect(status.message == "user pos (uid 1001, pid 42) may not have a swipe unmasked")
        #expect(try info(status).metadata["fix"]?.contains("pos") == true)
    }
}
