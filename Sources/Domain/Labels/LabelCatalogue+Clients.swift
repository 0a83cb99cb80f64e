import Foundation

/// The words lifelog adds when it answers the phone apps in their own formats (issue 27): the
/// subtitles of health-sync's section catalogue, and the sentence that says its "AI" briefing is
/// written by rules. Everything else those answers say comes from the health catalogue.
extension LabelCatalogue {
    public static let clientKeys = [
        "client.ai_briefing.rule_based", "client.section.explain", "client.section.no_data", "client.detail.usual",
        "client.section.recovery.subtitle", "client.section.sleep.subtitle", "client.section.activity.subtitle",
        "client.section.cardio.subtitle", "client.section.body.subtitle",
        "client.sleep.asleep_minutes", "client.sleep.deep_minutes", "client.sleep.rem_minutes",
    ]

    static let clientEnglish: [String: String] = [
        "client.ai_briefing.rule_based": "Written by lifelog from your own figures with fixed rules; no AI model is used.",
        "client.section.explain": "How it is measured",
        "client.section.no_data": "No data yet",
        "client.detail.usual": "usual {value}",
        "client.section.recovery.subtitle": "A score from sleep, HRV and resting heart rate",
        "client.section.sleep.subtitle": "Last night and the nights before",
        "client.section.activity.subtitle": "Steps, active energy and distance",
        "client.section.cardio.subtitle": "Resting heart rate, HRV, blood oxygen and breathing",
        "client.section.body.subtitle": "Weight and body fat",
        "client.sleep.asleep_minutes": "Asleep",
        "client.sleep.deep_minutes": "Deep sleep",
        "client.sleep.rem_minutes": "REM sleep",
    ]

    static let clientRussian: [String: String] = [
        "client.ai_briefing.rule_based": "Составлено lifelog по вашим данным по фиксированным правилам; модель ИИ не используется.",
        "client.section.explain": "Как это измеряется",
        "client.section.no_data": "Данных пока нет",
        "client.detail.usual": "обычно {value}",
        "client.section.recovery.subtitle": "Оценка по сну, ВСР и пульсу в покое",
        "client.section.sleep.subtitle": "Прошлая ночь и ночи до неё",
        "client.section.activity.subtitle": "Шаги, активная энергия и расстояние",
        "client.section.cardio.subtitle": "Пульс в покое, ВСР, кислород в крови и дыхание",
        "client.section.body.subtitle": "Вес и процент жира",
        "client.sleep.asleep_minutes": "Сон",
        "client.sleep.deep_minutes": "Глубокий сон",
        "client.sleep.rem_minutes": "Быстрый сон (REM)",
    ]

    static let clientSerbian: [String: String] = [
        "client.ai_briefing.rule_based": "Sastavio lifelog iz vaših podataka po utvrđenim pravilima; AI model se ne koristi.",
        "client.section.explain": "Kako se meri",
        "client.section.no_data": "Još nema podataka",
        "client.detail.usual": "obično {value}",
        "client.section.recovery.subtitle": "Ocena iz sna, HRV i pulsa u mirovanju",
        "client.section.sleep.subtitle": "Prošla noć i noći pre nje",
        "client.section.activity.subtitle": "Koraci, aktivna energija i razdaljina",
        "client.section.cardio.subtitle": "Puls u mirovanju, HRV, kiseonik u krvi i disanje",
        "client.section.body.subtitle": "Težina i procenat masti",
        "client.sleep.asleep_minutes": "San",
        "client.sleep.deep_minutes": "Dubok san",
        "client.sleep.rem_minutes": "REM san",
    ]
}
