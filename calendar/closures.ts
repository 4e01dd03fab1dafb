/**
 * Weekday closures of the Shanghai and Shenzhen stock exchanges (they share one calendar),
 * 2015-01-01 … 2026-12-31, as YYYYMMDD.
 *
 * Only Monday–Friday dates are listed: the exchanges never trade on a weekend, not even on the
 * Saturdays/Sundays the State Council declares make-up working days (调休上班日). The span in
 * each comment is the exchanges' published closure, weekends included.
 *
 * Sources: the exchanges' annual closure notices (which follow the State Council's holiday
 * arrangement, 国务院办公厅关于节假日安排的通知), cross-checked against the XSHG calendar of the
 * `exchange_calendars` Python project (precomputed holidays, incl. SSE notice of 2025-12-22
 * for 2026) and the CN list of `pandas_market_calendars`; all three agree on every weekday here.
 *
 * When a new year's notice is published, operators add it to their data directory at once with
 * `tickvault calendar import FILE` (calendar/closureStore.ts); a release then appends its dates
 * here and moves CALENDAR_LAST in tradingCalendar.ts. Never list a year before its notice.
 */
export const CLOSURE_DATES: readonly string[] = Object.freeze([
  // 2015 New Year: 1 – 3 Jan
  '20150101',
  '20150102',
  // 2015 Spring Festival: 18 – 24 Feb
  '20150218',
  '20150219',
  '20150220',
  '20150223',
  '20150224',
  // 2015 Qingming: 4 – 6 Apr
  '20150406',
  // 2015 Labour Day: 1 – 3 May
  '20150501',
  // 2015 Dragon Boat: 20 – 22 Jun
  '20150622',
  // 2015 70th anniversary of the victory in WWII (one-off): 3 – 5 Sep
  '20150903',
  '20150904',
  // 2015 National Day: 1 – 7 Oct (Mid-Autumn, 27 Sep, fell on a Sunday)
  '20151001',
  '20151002',
  '20151005',
  '20151006',
  '20151007',

  // 2016 New Year: 1 – 3 Jan
  '20160101',
  // 2016 Spring Festival: 7 – 13 Feb
  '20160208',
  '20160209',
  '20160210',
  '20160211',
  '20160212',
  // 2016 Qingming: 2 – 4 Apr
  '20160404',
  // 2016 Labour Day: 30 Apr – 2 May
  '20160502',
  // 2016 Dragon Boat: 9 – 11 Jun
  '20160609',
  '20160610',
  // 2016 Mid-Autumn: 15 – 17 Sep
  '20160915',
  '20160916',
  // 2016 National Day: 1 – 7 Oct
  '20161003',
  '20161004',
  '20161005',
  '20161006',
  '20161007',

  // 2017 New Year: 31 Dec 2016 – 2 Jan
  '20170102',
  // 2017 Spring Festival: 27 Jan – 2 Feb
  '20170127',
  '20170130',
  '20170131',
  '20170201',
  '20170202',
  // 2017 Qingming: 2 – 4 Apr
  '20170403',
  '20170404',
  // 2017 Labour Day: 29 Apr – 1 May
  '20170501',
  // 2017 Dragon Boat: 28 – 30 May
  '20170529',
  '20170530',
  // 2017 National Day + Mid-Autumn: 1 – 8 Oct
  '20171002',
  '20171003',
  '20171004',
  '20171005',
  '20171006',

  // 2018 New Year: 30 Dec 2017 – 1 Jan
  '20180101',
  // 2018 Spring Festival: 15 – 21 Feb
  '20180215',
  '20180216',
  '20180219',
  '20180220',
  '20180221',
  // 2018 Qingming: 5 – 7 Apr
  '20180405',
  '20180406',
  // 2018 Labour Day: 29 Apr – 1 May
  '20180430',
  '20180501',
  // 2018 Dragon Boat: 16 – 18 Jun
  '20180618',
  // 2018 Mid-Autumn: 22 – 24 Sep
  '20180924',
  // 2018 National Day: 1 – 7 Oct
  '20181001',
  '20181002',
  '20181003',
  '20181004',
  '20181005',

  // 2019 New Year: 30 Dec 2018 – 1 Jan 2019
  '20181231',
  '20190101',
  // 2019 Spring Festival: 4 – 10 Feb
  '20190204',
  '20190205',
  '20190206',
  '20190207',
  '20190208',
  // 2019 Qingming: 5 – 7 Apr
  '20190405',
  // 2019 Labour Day: 1 – 4 May
  '20190501',
  '20190502',
  '20190503',
  // 2019 Dragon Boat: 7 – 9 Jun
  '20190607',
  // 2019 Mid-Autumn: 13 – 15 Sep
  '20190913',
  // 2019 National Day: 1 – 7 Oct
  '20191001',
  '20191002',
  '20191003',
  '20191004',
  '20191007',

  // 2020 New Year: 1 Jan
  '20200101',
  // 2020 Spring Festival: 24 Jan – 2 Feb (extended by one day, 31 Jan, for COVID-19)
  '20200124',
  '20200127',
  '20200128',
  '20200129',
  '20200130',
  '20200131',
  // 2020 Qingming: 4 – 6 Apr
  '20200406',
  // 2020 Labour Day: 1 – 5 May
  '20200501',
  '20200504',
  '20200505',
  // 2020 Dragon Boat: 25 – 27 Jun
  '20200625',
  '20200626',
  // 2020 National Day + Mid-Autumn: 1 – 8 Oct
  '20201001',
  '20201002',
  '20201005',
  '20201006',
  '20201007',
  '20201008',

  // 2021 New Year: 1 – 3 Jan
  '20210101',
  // 2021 Spring Festival: 11 – 17 Feb
  '20210211',
  '20210212',
  '20210215',
  '20210216',
  '20210217',
  // 2021 Qingming: 3 – 5 Apr
  '20210405',
  // 2021 Labour Day: 1 – 5 May
  '20210503',
  '20210504',
  '20210505',
  // 2021 Dragon Boat: 12 – 14 Jun
  '20210614',
  // 2021 Mid-Autumn: 19 – 21 Sep
  '20210920',
  '20210921',
  // 2021 National Day: 1 – 7 Oct
  '20211001',
  '20211004',
  '20211005',
  '20211006',
  '20211007',

  // 2022 New Year: 1 – 3 Jan
  '20220103',
  // 2022 Spring Festival: 31 Jan – 6 Feb
  '20220131',
  '20220201',
  '20220202',
  '20220203',
  '20220204',
  // 2022 Qingming: 3 – 5 Apr
  '20220404',
  '20220405',
  // 2022 Labour Day: 30 Apr – 4 May
  '20220502',
  '20220503',
  '20220504',
  // 2022 Dragon Boat: 3 – 5 Jun
  '20220603',
  // 2022 Mid-Autumn: 10 – 12 Sep
  '20220912',
  // 2022 National Day: 1 – 7 Oct
  '20221003',
  '20221004',
  '20221005',
  '20221006',
  '20221007',

  // 2023 New Year: 31 Dec 2022 – 2 Jan
  '20230102',
  // 2023 Spring Festival: 21 – 27 Jan
  '20230123',
  '20230124',
  '20230125',
  '20230126',
  '20230127',
  // 2023 Qingming: 5 Apr
  '20230405',
  // 2023 Labour Day: 29 Apr – 3 May
  '20230501',
  '20230502',
  '20230503',
  // 2023 Dragon Boat: 22 – 24 Jun
  '20230622',
  '20230623',
  // 2023 Mid-Autumn + National Day: 29 Sep – 6 Oct
  '20230929',
  '20231002',
  '20231003',
  '20231004',
  '20231005',
  '20231006',

  // 2024 New Year: 1 Jan
  '20240101',
  // 2024 Spring Festival: 9 – 18 Feb (the exchanges also closed on the eve, Fri 9 Feb)
  '20240209',
  '20240212',
  '20240213',
  '20240214',
  '20240215',
  '20240216',
  // 2024 Qingming: 4 – 6 Apr
  '20240404',
  '20240405',
  // 2024 Labour Day: 1 – 5 May
  '20240501',
  '20240502',
  '20240503',
  // 2024 Dragon Boat: 8 – 10 Jun
  '20240610',
  // 2024 Mid-Autumn: 15 – 17 Sep
  '20240916',
  '20240917',
  // 2024 National Day: 1 – 7 Oct
  '20241001',
  '20241002',
  '20241003',
  '20241004',
  '20241007',

  // 2025 New Year: 1 Jan
  '20250101',
  // 2025 Spring Festival: 28 Jan – 4 Feb
  '20250128',
  '20250129',
  '20250130',
  '20250131',
  '20250203',
  '20250204',
  // 2025 Qingming: 4 – 6 Apr
  '20250404',
  // 2025 Labour Day: 1 – 5 May
  '20250501',
  '20250502',
  '20250505',
  // 2025 Dragon Boat: 31 May – 2 Jun
  '20250602',
  // 2025 National Day + Mid-Autumn: 1 – 8 Oct
  '20251001',
  '20251002',
  '20251003',
  '20251006',
  '20251007',
  '20251008',

  // 2026 New Year: 1 – 3 Jan
  '20260101',
  '20260102',
  // 2026 Spring Festival: 15 – 23 Feb
  '20260216',
  '20260217',
  '20260218',
  '20260219',
  '20260220',
  '20260223',
  // 2026 Qingming: 4 – 6 Apr
  '20260406',
  // 2026 Labour Day: 1 – 5 May
  '20260501',
  '20260504',
  '20260505',
  // 2026 Dragon Boat: 19 – 21 Jun
  '20260619',
  // 2026 Mid-Autumn: 25 – 27 Sep
  '20260925',
  // 2026 National Day: 1 – 7 Oct
  '20261001',
  '20261002',
  '20261005',
  '20261006',
  '20261007',
]);
