/** Health Kit REST base (HMSCore-References rest-overview: `https://health-api.cloud.huawei.com/healthkit/v2/{resourcesSet}`). */
export const HUAWEI_API = 'https://health-api.cloud.huawei.com/healthkit/v2';
