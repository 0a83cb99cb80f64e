import Foundation

/// Every word the server produces for people to read (status words, badge labels, metric and
/// component names), one catalogue per language. Clients render these verbatim; `GET /labels`
/// hands the whole catalogue to clients that build their own screens. English is complete by
/// definition; a test holds Russian and Serbian to the same keys.
public enum LabelCatalogue {
    public static func text(_ key: String, _ language: Language) -> String {
        labels(language)[key] ?? english[key] ?? key
    }

    public static func labels(_ language: Language) -> [String: String] {
        switch language {
        case .en: english
        case .ru: russian
        case .sr: serbian
        }
    }

    public static func status(_ status: RecoveryScore.Status) -> String { "recovery.status.\(status.rawValue)" }
    public static func component(_ key: RecoveryComponent.Key) -> String { "recovery.component.\(key.rawValue)" }
    public static func reason(_ reason: RecoveryComponent.Reason) -> String { "recovery.reason.\(reason.rawValue)" }
    public static func metric(_ metric: HealthMetric) -> String { "metric.\(metric.rawValue)" }
    public static let methodologyClass = "heuristic_personalized"
    public static let methodology = "methodology.heuristic_personalized"

    static let english: [String: String] = [
        "methodology.heuristic_personalized": "Heuristic, personalised to your baseline",
        "recovery.title": "Recovery",
        "recovery.status.good": "Good",
        "recovery.status.fair": "Fair",
        "recovery.status.poor": "Poor",
        "recovery.status.unscorable": "Not enough data",
        "recovery.status.calibrating": "Calibrating",
        "recovery.component.sleep": "Sleep",
        "recovery.component.hrv": "Heart rate variability",
        "recovery.component.resting_heart_rate": "Resting heart rate",
        "recovery.reason.no_data": "No data for this day",
        "recovery.reason.calibrating": "Learning your baseline",
        "check_in.feeling.1": "Very bad",
        "check_in.feeling.2": "Bad",
        "check_in.feeling.3": "Okay",
        "check_in.feeling.4": "Good",
        "check_in.feeling.5": "Very good",
        "metric.steps": "Steps",
        "metric.distance": "Distance",
        "metric.active_energy": "Active energy",
        "metric.heart_rate": "Heart rate",
        "metric.resting_heart_rate": "Resting heart rate",
        "metric.hrv_sdnn": "Heart rate variability (SDNN)",
        "metric.spo2": "Blood oxygen",
        "metric.respiratory_rate": "Respiratory rate",
        "metric.body_mass": "Weight",
        "metric.body_fat": "Body fat",
        "metric.vo2_max": "VO₂ max",
    ]

    static let russian: [String: String] = [
        "methodology.heuristic_personalized": "Эвристика, настроенная по вашему базовому уровню",
        "recovery.title": "Восстановление",
        "recovery.status.good": "Хорошо",
        "recovery.status.fair": "Средне",
        "recovery.status.poor": "Плохо",
        "recovery.status.unscorable": "Недостаточно данных",
        "recovery.status.calibrating": "Калибровка",
        "recovery.component.sleep": "Сон",
        "recovery.component.hrv": "Вариабельность пульса",
        "recovery.component.resting_heart_rate": "Пульс в покое",
        "recovery.reason.no_data": "Нет данных за этот день",
        "recovery.reason.calibrating": "Изучаем ваш базовый уровень",
        "check_in.feeling.1": "Очень плохо",
        "check_in.feeling.2": "Плохо",
        "check_in.feeling.3": "Нормально",
        "check_in.feeling.4": "Хорошо",
        "check_in.feeling.5": "Отлично",
        "metric.steps": "Шаги",
        "metric.distance": "Расстояние",
        "metric.active_energy": "Активная энергия",
        "metric.heart_rate": "Пульс",
        "metric.resting_heart_rate": "Пульс в покое",
        "metric.hrv_sdnn": "Вариабельность пульса (SDNN)",
        "metric.spo2": "Кислород в крови",
        "metric.respiratory_rate": "Частота дыхания",
        "metric.body_mass": "Вес",
        "metric.body_fat": "Процент жира",
        "metric.vo2_max": "МПК (VO₂ max)",
    ]

    static let serbian: [String: String] = [
        "methodology.heuristic_personalized": "Heuristika, prilagođena vašem osnovnom nivou",
        "recovery.title": "Oporavak",
        "recovery.status.good": "Dobro",
        "recovery.status.fair": "Osrednje",
        "recovery.status.poor": "Loše",
        "recovery.status.unscorable": "Nema dovoljno podataka",
        "recovery.status.calibrating": "Kalibracija",
        "recovery.component.sleep": "San",
        "recovery.component.hrv": "Varijabilnost srčanog ritma",
        "recovery.component.resting_heart_rate": "Puls u mirovanju",
        "recovery.reason.no_data": "Nema podataka za ovaj dan",
        "recovery.reason.calibrating": "Učimo vaš osnovni nivo",
        "check_in.feeling.1": "Veoma loše",
        "check_in.feeling.2": "Loše",
        "check_in.feeling.3": "U redu",
        "check_in.feeling.4": "Dobro",
        "check_in.feeling.5": "Odlično",
        "metric.steps": "Koraci",
        "metric.distance": "Razdaljina",
        "metric.active_energy": "Aktivna energija",
        "metric.heart_rate": "Puls",
        "metric.resting_heart_rate": "Puls u mirovanju",
        "metric.hrv_sdnn": "Varijabilnost srčanog ritma (SDNN)",
        "metric.spo2": "Kiseonik u krvi",
        "metric.respiratory_rate": "Brzina disanja",
        "metric.body_mass": "Težina",
        "metric.body_fat": "Procenat masti",
        "metric.vo2_max": "VO₂ max",
    ]
}
