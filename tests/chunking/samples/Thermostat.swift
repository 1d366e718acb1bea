import Foundation
import SwiftUI

/// Holds the target temperature and decides when to heat.
final class Thermostat: ObservableObject {
    @Published var target: Double
    private let hysteresis: Double

    init(target: Double, hysteresis: Double = 0.5) {
        self.target = target
        self.hysteresis = hysteresis
    }

    func shouldHeat(current: Double) -> Bool {
        return current < target - hysteresis
    }
}

struct ThermostatView: View {
    @ObservedObject var thermostat: Thermostat

    var body: some View {
        VStack {
            Text("Target \(thermostat.target, specifier: "%.1f")")
            Stepper("Adjust", value: $thermostat.target, in: 10...30, step: 0.5)
        }
    }
}

protocol Sensor {
    func read() -> Double
}

func celsius(fromFahrenheit value: Double) -> Double {
    return (value - 32) * 5 / 9
}
